// The authorization matrix, generated from the routes the application registers: every route × every kind of
// principal (no credential, a key not granted the fixture Agent, a key granted it (uses it, does not manage it), an
// admin key, and the Space's owner, editor and member and a non-member, each by key (`x-api-key`, granted `all`) and
// signed in (the session cookie)), against fixtures the owner made (a Space, an Agent in it, a Space document, a tag,
// a conversation, a memory, a Skill). A route without a row in the authorization table (ROUTE_AUTHORIZATION, #identity)
// fails the test, as does a row for a route that does not exist. The expected answer is the policy's own decision
// for that principal, action and fixture: denied → 403 or 404, never a success, never the fixture's data; allowed →
// neither 401 nor 403; no credential → 401 (public routes: answered); never a 5xx. The bridge's routes
// (`/api/v1/bridge/...`) take App tokens only: they are called as Apps (enabled for the fixture Agent, globally, for
// no Agent) and with the session tokens a global App gets for a non-member, a member, an editor and an admin, instead
// of keys; a session token's answer must be its App's and its person's together.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  APP_PROXY_ROUTE,
  authorize,
  ROUTE_AUTHORIZATION,
  type Action,
  type ApiKeyPrincipal,
  type AppTokenPrincipal,
  type Principal as PolicyPrincipal,
  type Resources,
  type RouteRule,
  type SpaceRole,
} from '#identity';
import { strToU8, zipSync } from 'fflate';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { registeredRoutes } from './support/routes.js';

/** In the names and texts of the owner's Space, Agent, document and Skill: for whoever may use the Agent. */
const SECRET = 'MATRIX-SECRET-5d1c';
/** In the owner's own conversation and memory: the owner's alone. */
const PRIVATE = 'MATRIX-PRIVATE-93be';

interface Principal {
  readonly label: string;
  readonly key: string | null;
  /** A session cookie instead of a key. */
  readonly cookie?: string;
  /** The policy's view of it; null for no credential. */
  readonly principal: (ApiKeyPrincipal | AppTokenPrincipal | PolicyPrincipal) | null;
}

const BRIDGE = '/api/v1/bridge/';

type UserPrincipal = Extract<PolicyPrincipal, { kind: 'apiKey' | 'session' }>;

interface Fixtures {
  readonly spaceId: string;
  readonly agentId: string;
  readonly documentId: string;
  readonly tagId: string;
  readonly conversationId: string;
  readonly messageId: string;
  readonly memoryId: string;
  readonly skillId: string;
  readonly versionId: string;
  readonly promptId: string;
  readonly spareKeyId: string;
  /** The user of the spare key: the one the membership routes add, change and remove. */
  readonly spareUserId: string;
  readonly ownerKeyId: string;
  readonly appId: string;
  readonly ownerUserId: string;
  /** The Space's members as the owner recorded them. */
  readonly members: Readonly<Record<string, SpaceRole>>;
}

/** The order DELETE routes run in, after every other route: children before the things that hold them. */
const DELETE_ORDER = [
  '/messages/{messageId}',
  '/conversation/{conversationId}',
  '/documents/{documentId}/tags/{tagId}',
  '/tags/{tagId}',
  '/memories/{memoryId}',
  '/memories',
  '/memory',
  '/documents/{documentId}',
  '/marketplace/skills/{skillId}',
  '/skills/{skillId}',
  '/prompts/{promptId}',
  '/cost-control/{apiKeyId}',
  '/api-keys/{apiKeyId}',
  '/agents/{agentId}',
  '/members/{userId}',
  // Leaving (a POST) runs with the deletions: after it, what the member's role allowed is no longer theirs.
  '/leave',
  '/spaces/{spaceId}',
  // Signing out ends the sessions of the principals signed in: after everything else.
  '/auth/sign-out',
  '/auth/sign-out-everywhere',
];

/** Routes run last, in DELETE_ORDER: deletions, leaving a Space, signing out. */
const runsLast = (method: string, path: string) =>
  method === 'DELETE' || path.endsWith('/leave') || path.includes('/auth/sign-out');

const deleteRank = (path: string) => {
  const rank = DELETE_ORDER.findIndex((suffix) => path.endsWith(suffix));
  return rank === -1 ? DELETE_ORDER.indexOf('/auth/sign-out') - 0.5 : rank;
};

// The App proxy's row (APP_PROXY_ROUTE, a raw route Nest does not list): every principal × each session-only sub-path
// and a public one, through the real proxy to a real App on loopback. A session-only sub-path reaches the App for a
// signed-in person only (keys and App tokens are no person there: 401 `session_required`, the App never reached); a
// public one reaches it for everyone, carrying none of the caller's credentials and a `svc_session_token` only for a
// person.
async function appProxyMatrix(
  base: string,
  principals: readonly Principal[],
): Promise<{ readonly cases: number; readonly failures: string[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    if (request.url === '/meta') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'matrix-proxy', name: 'Matrix proxy' }));
      return;
    }
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('the App');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const registered = await client(base).post<{ id: string }>(`${CORE}/apps`, {
      name: uniqueName('matrix proxy'),
      source: { type: 'url', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    });
    if (registered.status !== 201) throw new Error(`the App proxy's App: ${registered.status}`);
    const rule = ROUTE_AUTHORIZATION[APP_PROXY_ROUTE];
    if (typeof rule !== 'object' || !('appProxy' in rule)) throw new Error('the App proxy has no row');
    // Each session-only segment as written and as a server that ignores case and `;params` would read it.
    const paths = [
      ...rule.appProxy.sessionOnly.flatMap((segment) => [`/${segment}/x`, `/${segment.toUpperCase()};p/x`]),
      '/hooks/x',
    ];
    const failures: string[] = [];
    let cases = 0;
    for (const who of principals)
      for (const path of paths) {
        const headers: Record<string, string> = who.key
          ? who.key.startsWith('apt_') || who.key.startsWith('svc_')
            ? { authorization: `Bearer ${who.key}` }
            : { 'x-api-key': who.key }
          : who.cookie
            ? { cookie: who.cookie }
            : {};
        const before = seen.length;
        const response = await fetch(`${base}/app/${registered.body.id}${path}`, { headers });
        const text = await response.text();
        cases++;
        const fail = (why: string) =>
          failures.push(
            `${APP_PROXY_ROUTE} ${path} as ${who.label}: ${why} (${response.status} ${text.slice(0, 200)})`,
          );
        const person = who.principal?.kind === 'session';
        const sessionOnly = path !== '/hooks/x';
        const reached = seen.length > before ? seen.at(-1)! : null;
        if (response.status >= 500) fail('a 5xx');
        if (sessionOnly && !person) {
          if (response.status !== 401 || !text.includes('"session_required"')) fail('no person, not 401');
          if (reached) fail('no person, yet the App was reached');
          continue;
        }
        if (response.status !== 200 || !reached) {
          fail('allowed, yet the App was not reached');
          continue;
        }
        if (reached.cookie || reached.authorization || reached['x-api-key'])
          fail("the caller's credential reached the App");
        if (person !== (typeof reached.svc_session_token === 'string'))
          fail('svc_session_token not for a person only');
      }
    return { cases, failures };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('authorization matrix (e2e, generated from the registered routes)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  const issueKey = async (agents: 'all' | string[], label: string) => {
    const reply = await client(api.url).post<{ id: string; key: string; ownerUserId: string }>(
      `${CORE}/api-keys`,
      { name: uniqueName(label), owner: { email: `${label}-${Date.now()}@example.com` }, agents },
    );
    expect(reply.status).toBe(201);
    return reply.body;
  };

  const keyPrincipal = (
    key: { id: string; ownerUserId: string },
    agents: 'all' | string[],
  ): ApiKeyPrincipal => ({
    kind: 'apiKey',
    keyId: key.id,
    userId: key.ownerUserId,
    isAdmin: false,
    grants: agents === 'all' ? { kind: 'all' } : { kind: 'agents', agentIds: agents },
  });

  const registerApp = async (label: string, enablement: unknown) => {
    const reply = await client(api.url).post<{ id: string; token: string }>(`${CORE}/apps`, {
      name: uniqueName(label),
      source: { type: 'url', url: 'http://127.0.0.1:9' },
      enablement,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  /**
   * An App that answers its `/meta` and keeps the `svc_session_token` the proxy sends it for each person: the tokens
   * the bridge's matrix calls with, obtained as an App obtains them (a person opens the App signed in).
   */
  const witnessApp = async () => {
    const tokens: string[] = [];
    const server: Server = createServer((request, response) => {
      const token = request.headers['svc_session_token'];
      if (typeof token === 'string') tokens.push(token);
      response.setHeader('content-type', 'application/json');
      response.end(
        request.url === '/meta' ? JSON.stringify({ id: `witness-${Date.now()}`, name: 'Witness' }) : '{}',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const app = await client(api.url).post<{ id: string }>(`${CORE}/apps`, {
      name: uniqueName('witness'),
      source: { type: 'url', url },
      enablement: { kind: 'global' },
    });
    expect(app.status).toBe(201);
    const tokenOf = async (cookie: string): Promise<string> => {
      const before = tokens.length;
      const opened = await fetch(`${api.url}/app/${app.body.id}/`, { headers: { cookie } });
      await opened.text();
      expect(opened.status).toBe(200);
      expect(tokens.length).toBe(before + 1);
      return tokens.at(-1)!;
    };
    return {
      appId: app.body.id,
      tokenOf,
      close: () => new Promise<void>((done) => server.close(() => done())),
    };
  };

  /** A person invited and signed in: their session cookie, and their own key granted `all`. */
  const person = async (label: string, role: 'member' | 'admin' = 'member') => {
    const email = `${label}-${Date.now()}@example.com`;
    const invitation = await client(api.url).post<{ link: string }>(`${CORE}/invitations`, {
      email,
      role,
    });
    expect(invitation.status).toBe(201);
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1] ?? '');
    const accepted = await client(api.url, null).post<{ id: string }>(`${CORE}/invitations/accept`, {
      token,
      name: label,
      password: 'a long matrix passphrase',
    });
    expect(accepted.status).toBe(201);
    const cookie = /ap_session=[A-Za-z0-9_-]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
    const key = await client(api.url, null).post<{ id: string; key: string }>(
      `${CORE}/me/api-keys`,
      { name: `${label} key`, agents: 'all', usageLimit: { tokens: 1_000_000_000, window: 'month' } },
      { cookie, origin: api.url },
    );
    expect(key.status).toBe(201);
    return { userId: accepted.body.id, cookie, keyId: key.body.id, key: key.body.key };
  };

  /** The owner's things, every one of them named or filled with SECRET. */
  const fixtures = async (
    ownerKey: string,
    ownerKeyId: string,
    ownerUserId: string,
    team: { readonly editor: string; readonly member: string },
  ): Promise<Fixtures> => {
    const as = client(api.url, ownerKey);
    const created = async <T = { id: string }>(path: string, body: unknown): Promise<T> => {
      const reply = await as.post<T>(path, body);
      if (reply.status !== 201 && reply.status !== 200)
        throw new Error(`fixture ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    };
    const space = await created(`${CORE}/spaces`, { name: `${SECRET} ${uniqueName('space')}` });
    await created(`${CORE}/spaces/${space.id}/members`, { userId: team.editor, role: 'editor' });
    await created(`${CORE}/spaces/${space.id}/members`, { userId: team.member, role: 'member' });
    const agent = await created(`${CORE}/agents`, { spaceId: space.id, name: `${SECRET} agent` });
    await as.put(`${CORE}/agents/${agent.id}/prompt`, { systemPrompt: `${SECRET} prompt` });
    const tag = await created(`${CORE}/knowledge/${agent.id}/tags`, { name: `${SECRET}-tag` });
    const document = await created(`${CORE}/knowledge/${agent.id}/documents`, {
      name: `${SECRET}.txt`,
      text: `${SECRET} the quarterly numbers`,
      scope: 'space',
    });
    const turn = await created<{ conversationId: string; message: { id: string } }>(
      `${CORE}/llm/${agent.id}/conversation`,
      { message: `${PRIVATE} hello` },
    );
    const memory = await created(`${CORE}/memory/${agent.id}/memories`, { text: `${PRIVATE} likes tea` });
    const skill = await created<{ id: string; activeVersionId: string }>(`${CORE}/skills`, {
      agentId: agent.id,
      name: 'matrix-skill',
      description: `${SECRET} when asked`,
      instructions: `${SECRET} do it`,
      publish: true,
    });
    const prompt = await created(`${CORE}/spaces/${space.id}/prompts`, {
      title: `${SECRET} prompt`,
      text: `${SECRET} start from here`,
    });
    const spare = await issueKey([], 'spare');
    const app = await registerApp('spare', { kind: 'agents', agentIds: [] });
    return {
      promptId: prompt.id,
      spareUserId: spare.ownerUserId,
      ownerUserId,
      members: { [ownerUserId]: 'owner', [team.editor]: 'editor', [team.member]: 'member' },
      spaceId: space.id,
      agentId: agent.id,
      documentId: document.id,
      tagId: tag.id,
      conversationId: turn.conversationId,
      messageId: turn.message.id,
      memoryId: memory.id,
      skillId: skill.id,
      versionId: skill.activeVersionId,
      spareKeyId: spare.id,
      ownerKeyId,
      appId: app.id,
    };
  };

  /** A concrete request for a route: its path parameters filled from the fixtures, a valid-shaped body. */
  const requestFor = (route: string, f: Fixtures) => {
    const [method, template] = route.split(' ') as [string, string];
    const params: Record<string, string> = {
      spaceId: f.spaceId,
      agentId: f.agentId,
      documentId: f.documentId,
      tagId: f.tagId,
      conversationId: f.conversationId,
      messageId: f.messageId,
      memoryId: f.memoryId,
      skillId: f.skillId,
      versionId: f.versionId,
      apiKeyId: f.spareKeyId,
      appId: f.appId,
      promptId: f.promptId,
      version: '1',
      userId: route.includes('/members/') ? f.spareUserId : 'userId',
      proposalId: 'prp_matrix0000000000',
      model: 'offline-chat',
      asset: 'swagger-ui.css',
    };
    const path = template.replace(/\{(\w+)\}/g, (_all, name: string) => params[name] ?? name);
    const messages = [{ role: 'user', content: 'what do you know?' }];
    const bodies: Record<string, unknown> = {
      [`POST ${CORE}/spaces`]: { name: uniqueName('matrix space') },
      [`PATCH ${CORE}/spaces/{spaceId}`]: { description: 'changed' },
      [`POST ${CORE}/spaces/{spaceId}/members`]: { userId: f.spareUserId, role: 'member' },
      [`PATCH ${CORE}/spaces/{spaceId}/members/{userId}`]: { role: 'member' },
      [`PUT ${CORE}/settings/space-creation`]: { creatorRoles: ['admin', 'member'] },
      [`POST ${CORE}/spaces/{spaceId}/prompts`]: { title: 'planted', text: 'planted' },
      [`PATCH ${CORE}/spaces/{spaceId}/prompts/{promptId}`]: { text: 'revised' },
      [`POST ${CORE}/agents`]: { spaceId: f.spaceId, name: 'matrix agent' },
      [`PUT ${CORE}/agents/{agentId}`]: { name: `${SECRET} agent` },
      [`PUT ${CORE}/agents/{agentId}/prompt`]: { systemPrompt: 'changed' },
      [`POST ${CORE}/api-keys`]: { name: uniqueName('matrix key'), agents: [] },
      [`PATCH ${CORE}/api-keys/{apiKeyId}`]: { name: 'renamed' },
      [`POST ${CORE}/invitations`]: { email: 'matrix-invitee@example.com' },
      [`PATCH ${CORE}/users/{userId}`]: { role: 'member' },
      [`PATCH ${CORE}/users/me`]: { language: 'en' },
      [`POST ${CORE}/auth/oidc/{providerId}/link`]: { returnTo: '/settings' },
      [`POST ${CORE}/knowledge/{agentId}/documents`]: {
        name: 'planted.txt',
        text: 'planted',
        scope: 'space',
      },
      [`POST ${CORE}/knowledge/{agentId}/documents/bulk`]: {
        action: 'reprocess',
        documentIds: [f.documentId],
      },
      [`POST ${CORE}/knowledge/{agentId}/documents/download`]: { documentIds: [f.documentId] },
      [`PUT ${CORE}/knowledge/{agentId}/documents/{documentId}`]: { name: 'renamed.txt' },
      [`POST ${CORE}/knowledge/{agentId}/search`]: { query: 'quarterly numbers' },
      [`POST ${CORE}/knowledge/{agentId}/tags`]: { name: uniqueName('tag').replace(' ', '-') },
      [`PUT ${CORE}/knowledge/{agentId}/tags/{tagId}`]: { name: 'renamed-tag' },
      [`POST ${CORE}/knowledge/{agentId}/summary-index/build`]: {},
      [`POST ${CORE}/knowledge/{agentId}/summary-index/rebuild`]: {},
      [`POST ${CORE}/knowledge/{agentId}/summary-index/cancel`]: {},
      [`POST ${CORE}/knowledge-index/reindex`]: {},
      [`POST ${CORE}/llm/{agentId}/generateText`]: { messages },
      [`POST ${CORE}/llm/{agentId}/generateObject`]: { messages, schema: { type: 'object' } },
      [`POST ${CORE}/llm/{agentId}/generateImage`]: { prompt: 'x', aspectRatio: '1:1', resolution: '1K' },
      [`POST ${CORE}/llm/{agentId}/conversation`]: { message: 'hello' },
      [`POST ${CORE}/llm/{agentId}/speech`]: { text: 'hello', voiceName: 'alloy' },
      [`POST ${CORE}/llm/{agentId}/transcribe`]: {
        model: 'offline-transcribe',
        audioBase64: 'UklGRgAAAABXQVZF',
        mimeType: 'audio/wav',
      },
      [`PATCH ${CORE}/llm/{agentId}/conversation/{conversationId}`]: { title: 'renamed' },
      [`POST ${CORE}/memory/{agentId}/memories`]: { text: 'likes coffee' },
      [`PATCH ${CORE}/memory/{agentId}/memories/{memoryId}`]: { text: 'likes green tea' },
      [`POST ${CORE}/memory/{agentId}/memories/{memoryId}/rollback`]: { version: 1 },
      [`POST ${CORE}/memory/{agentId}/proposals/{proposalId}`]: { answer: 'discard' },
      [`POST ${CORE}/skills`]: {
        agentId: f.agentId,
        name: 'matrix-other',
        description: 'when asked',
        instructions: 'do it',
      },
      [`PUT ${CORE}/skills/{skillId}`]: { description: 'changed' },
      [`PUT ${CORE}/skills/{skillId}/active-version`]: { versionId: f.versionId },
      [`POST ${CORE}/skills/{skillId}/publish`]: {},
      [`POST ${CORE}/skills/{skillId}/marketplace`]: {},
      [`POST ${CORE}/marketplace/skills/{skillId}/install`]: { agentId: f.agentId },
      [`POST ${CORE}/marketplace/skills/{skillId}/restore`]: {},
      [`POST ${CORE}/cost-control/{apiKeyId}`]: { tokens: 1000, window: 'day' },
      [`PUT ${CORE}/cost-control/{apiKeyId}`]: { tokens: 2000, window: 'day' },
      // `allow`: the user's later calls in the matrix still go through.
      [`PUT ${CORE}/cost-control/users/{userId}`]: { tokens: 1_000_000, overage: 'allow' },
      [`PUT ${CORE}/cost-control/spaces/{spaceId}`]: { tokens: 1_000_000, overage: 'allow' },
      [`POST ${CORE}/apps`]: {
        name: uniqueName('matrix app'),
        source: { type: 'url', url: 'http://127.0.0.1:9' },
      },
      [`PATCH ${CORE}/apps/{appId}`]: { name: 'renamed app' },
      [`POST /api/v1/bridge/agents/{agentId}/conversations/find`]: { take: 10 },
      'POST /api/compat/v1/chat/completions': { model: 'offline-chat', messages },
      'POST /api/compat/v1/embeddings': { model: 'offline-embed', input: 'hello' },
      'POST /api/compat/v1/rerank': { model: 'offline-rerank', query: 'q', input: ['a', 'b'] },
    };
    const query: Record<string, string> = {
      [`GET ${CORE}/usage`]: '?dimension=apiKey',
      [`GET ${CORE}/skills`]: `?agentId=${f.agentId}`,
      [`GET ${CORE}/agents`]: '?limit=200',
      [`GET ${CORE}/spaces`]: '?limit=200',
      [`GET ${CORE}/spaces/{spaceId}/member-candidates`]: '?query=example',
      [`GET ${CORE}/llm/{agentId}/conversation/{conversationId}/sandbox/files`]: '?path=/',
    };
    const multipart = route.endsWith('/upload')
      ? method === 'POST'
        ? 'matrix-upload'
        : 'matrix-skill'
      : null;
    // The bridge's Agent routes are the core's, under another prefix: the same bodies.
    const coreRoute = route
      .replace('/api/v1/bridge/agents/{agentId}/llm', `${CORE}/llm/{agentId}`)
      .replace('/api/v1/bridge/llm', `${CORE}/llm/{agentId}`)
      .replace('/api/v1/bridge/agents/{agentId}/knowledge', `${CORE}/knowledge/{agentId}`);
    return { method, path: path + (query[route] ?? ''), body: bodies[route] ?? bodies[coreRoute], multipart };
  };

  const call = async (
    who: Principal,
    request: { method: string; path: string; body: unknown; multipart: string | null },
    f: Fixtures,
  ) => {
    let body: string | FormData | undefined;
    const headers: Record<string, string> = who.key
      ? who.key.startsWith('apt_') || who.key.startsWith('svc_')
        ? { authorization: `Bearer ${who.key}` }
        : { 'x-api-key': who.key }
      : who.cookie
        ? { cookie: who.cookie, origin: api.url }
        : {};
    if (request.multipart) {
      // A valid Skill bundle: what is refused must be refused for who sends it, not for its shape.
      const bundle = zipSync({
        'SKILL.md': strToU8(`---\nname: ${request.multipart}\ndescription: When asked.\n---\n\nDo it.\n`),
      });
      const form = new FormData();
      if (request.method === 'POST') form.append('agentId', f.agentId);
      form.append('file', new Blob([bundle]), 'skill.zip');
      body = form;
    } else if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    const response = await fetch(`${api.url}${request.path}`, { method: request.method, headers, body });
    return { status: response.status, text: await response.text() };
  };

  /** What the action needs to know of the fixtures (and the route), as the policy reads it. */
  const resourceFor = (
    action: Action,
    principal: PolicyPrincipal,
    f: Fixtures,
    route = '',
  ): Resources[Action] => {
    const space = { id: f.spaceId, createdByApiKeyId: f.ownerKeyId, members: f.members };
    const agent = {
      id: f.agentId,
      isPersonal: false,
      ownerUserId: null,
      spaceId: f.spaceId,
      isPublic: false,
      space,
    };
    switch (action) {
      case 'agent.manage':
      case 'memory.shared.write':
        return { agent, space };
      case 'knowledge.write':
        return { agent, space, scope: 'space' };
      case 'space.read':
        return { space, holdsReachableAgent: authorize(principal, 'agent.use', agent).allow };
      case 'agent.create':
      case 'space.change':
      case 'space.content.change':
      case 'space.members.read':
      case 'space.member.candidates':
      case 'prompt.read':
      case 'prompt.change':
        return space;
      case 'space.member.change': {
        // Leaving: the principal's own membership; the other membership routes: the spare user's, a member.
        const leaving = route.endsWith('/leave');
        const userId = leaving && 'userId' in principal ? principal.userId : f.spareUserId;
        return {
          space,
          userId,
          currentRole: leaving ? (f.members[userId] ?? null) : 'member',
          newRole: leaving || route.startsWith('DELETE') ? null : 'member',
        };
      }
      case 'skill.read':
      case 'skill.change':
        return { kind: 'agent', agent, space };
      case 'knowledge.tag':
        return { agent, space };
      case 'agent.use':
      case 'knowledge.read':
      case 'knowledge.index':
      case 'memory.read':
      case 'memory.personal.write':
      case 'app.view':
        return agent;
      default:
        return null;
    }
  };

  it('has a row for every registered route, and every route answers as the policy decides: 0 leaks', async () => {
    const routes = registeredRoutes(api.app);
    const missing = routes.filter((route) => !Object.hasOwn(ROUTE_AUTHORIZATION, route));
    // The App proxy is a raw route of the server (not a controller): its row is stale when that route is gone.
    const rawRoutes = api.app.getHttpAdapter().getInstance().hasRoute({ method: 'GET', url: '/app/:appId/*' })
      ? [APP_PROXY_ROUTE]
      : [];
    const stale = Object.keys(ROUTE_AUTHORIZATION).filter(
      (route) => !routes.includes(route) && !rawRoutes.includes(route),
    );
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });

    const [owner, editor, member, outsider] = [
      await person('owner'),
      await person('editor'),
      await person('member'),
      await person('outsider'),
    ];
    const f = await fixtures(owner.key, owner.keyId, owner.userId, {
      editor: editor.userId,
      member: member.userId,
    });
    const granted = await issueKey([f.agentId], 'granted');
    const notGranted = await issueKey([], 'stranger');
    const byRole = (label: string, who: typeof owner): Principal[] => [
      {
        label: `${label}'s key`,
        key: who.key,
        principal: keyPrincipal({ id: who.keyId, ownerUserId: who.userId }, 'all'),
      },
      {
        label: `${label} signed in`,
        key: null,
        cookie: who.cookie,
        principal: { kind: 'session', userId: who.userId, isAdmin: false },
      },
    ];
    const principals: Principal[] = [
      { label: 'no credential', key: null, principal: null },
      { label: 'key not granted the Agent', key: notGranted.key, principal: keyPrincipal(notGranted, []) },
      { label: 'key granted the Agent', key: granted.key, principal: keyPrincipal(granted, [f.agentId]) },
      ...byRole('a non-member', outsider),
      ...byRole('a member', member),
      ...byRole('an editor', editor),
      ...byRole('the owner', owner),
      {
        label: 'admin key',
        key: ADMIN_KEY,
        principal: {
          kind: 'apiKey',
          keyId: 'admin',
          userId: 'admin',
          isAdmin: true,
          grants: { kind: 'all' },
        },
      },
    ];
    // What a refused caller must never see: what the policy does not let it read (the ids it did not send itself,
    // the Space's and Agent's names and texts), and the owner's own conversation and memory.
    const chosen = await registerApp('chosen', { kind: 'agents', agentIds: [f.agentId] });
    const global = await registerApp('global', { kind: 'global' });
    const none = await registerApp('none', { kind: 'agents', agentIds: [] });
    const appPrincipal = (appId: string, allowlist: string[]): AppTokenPrincipal => ({
      kind: 'appToken',
      appId,
      allowlist,
    });
    const bridgePrincipals: Principal[] = [
      { label: 'no credential', key: null, principal: null },
      { label: 'App enabled for no Agent', key: none.token, principal: appPrincipal(none.id, []) },
      {
        label: 'App enabled for the Agent',
        key: chosen.token,
        principal: appPrincipal(chosen.id, [f.agentId]),
      },
      { label: 'App enabled globally', key: global.token, principal: appPrincipal(global.id, [f.agentId]) },
    ];
    // Session tokens (`svc_session_token`) of a global App, each of its person: exactly what the App may reach and
    // what the person may do signed in.
    const admin = await person('admin', 'admin');
    const witness = await witnessApp();
    const sessionToken = async (label: string, who: typeof owner, isAdmin = false): Promise<Principal> => ({
      label: `session token of ${label}`,
      key: await witness.tokenOf(who.cookie),
      principal: { ...appPrincipal(witness.appId, [f.agentId]), user: { userId: who.userId, isAdmin } },
    });
    bridgePrincipals.push(
      await sessionToken('a non-member', outsider),
      await sessionToken('a member', member),
      await sessionToken('an editor', editor),
      await sessionToken('an admin', admin, true),
    );

    // Another user's personal Agent: out of reach of a session token, a global App's and an admin's included; its
    // own user reaches it through the App (before the matrix below signs the people out).
    await waitUntil(async () =>
      (
        await client(api.url, owner.key).get<{ data: { isPersonal: boolean }[] }>(`${CORE}/agents?limit=200`)
      ).body.data.some((agent) => agent.isPersonal),
    );
    const personal = (
      await client(api.url, owner.key).get<{ data: { id: string; isPersonal: boolean }[] }>(
        `${CORE}/agents?limit=200`,
      )
    ).body.data.find((agent) => agent.isPersonal)!;
    const bridgeAgentRoutes = routes.filter((route) => route.split(' ')[1]!.startsWith(`${BRIDGE}agents/`));
    const personalFailures: string[] = [];
    for (const [label, token] of [
      ['a non-member', bridgePrincipals.at(-4)!.key!],
      ['an admin', bridgePrincipals.at(-1)!.key!],
    ] as const)
      for (const route of bridgeAgentRoutes.filter((route) => !route.startsWith('DELETE'))) {
        const request = requestFor(route, { ...f, agentId: personal.id });
        const reply = await call({ label, key: token, principal: null }, request, f);
        if (reply.status !== 403 && reply.status !== 404)
          personalFailures.push(`${route} on a personal Agent as ${label}: ${reply.status}`);
      }
    const own = await fetch(`${api.url}${BRIDGE}agents/${personal.id}`, {
      headers: { authorization: `Bearer ${await witness.tokenOf(owner.cookie)}` },
    });
    expect(own.status).toBe(200);
    expect(personalFailures).toEqual([]);
    await witness.close();
    const hidden = (principal: UserPrincipal | AppTokenPrincipal) => {
      const may = (action: Action) => authorize(principal, action, resourceFor(action, principal, f)).allow;
      const owners = principal.kind !== 'appToken' && principal.userId === f.ownerUserId;
      const ids = [
        ...(may('space.read') ? [] : [f.spaceId]),
        ...(may('agent.use') ? [] : [f.agentId, f.documentId, f.tagId]),
        ...(may('skill.read') ? [] : [f.skillId]),
        ...(owners ? [] : [f.conversationId, f.messageId, f.memoryId]),
      ];
      const texts = [...(may('agent.use') ? [] : [SECRET]), ...(owners ? [] : [PRIVATE])];
      return { ids, texts };
    };
    const ordered = routes.toSorted((a, b) => {
      const [ma, pa] = a.split(' ') as [string, string];
      const [mb, pb] = b.split(' ') as [string, string];
      const da = runsLast(ma, pa) ? 1 : 0;
      const db = runsLast(mb, pb) ? 1 : 0;
      return da - db || (da === 1 ? deleteRank(pa) - deleteRank(pb) : 0);
    });

    // Before the routes run: the sign-out routes end the sessions the proxy's session-only paths need.
    const proxy = await appProxyMatrix(api.url, [...principals, ...bridgePrincipals.slice(1)]);
    const failures: string[] = [];
    /** Sessions a sign-out route ended: from then on they are not authenticated (401). */
    const signedOut = new Set<string>();
    let cases = 0;
    let changes = 0;
    let succeeded = 0;
    let allowedCases = 0;
    for (const route of ordered) {
      const rule: RouteRule = ROUTE_AUTHORIZATION[route]!;
      for (const who of route.split(' ')[1]!.startsWith(BRIDGE) ? bridgePrincipals : principals) {
        const request = requestFor(route, f);
        const reply = await call(who, request, f);
        cases++;
        const fail = (why: string) =>
          failures.push(`${route} as ${who.label}: ${why} (${reply.status} ${reply.text.slice(0, 200)})`);
        if (reply.status >= 500) fail('a 5xx');
        if (who.cookie && signedOut.has(who.cookie)) {
          if (reply.status !== 401) fail('a session signed out, not 401');
          continue;
        }
        if (who.cookie && route.includes('/auth/sign-out') && reply.status < 300) signedOut.add(who.cookie);
        if (rule === 'public') {
          if (reply.status === 401 || reply.status === 403) fail('a public route refused');
          continue;
        }
        if (typeof rule === 'object' && 'embed' in rule) {
          // Whoever asks, the answer is the embed visitor's: the fixture's Agent is not public.
          const visitor = { kind: 'embedVisitor', agentId: f.agentId, visitorId: 'matrix' } as const;
          const allowed = authorize(visitor, rule.embed, resourceFor(rule.embed, visitor, f)).allow;
          if (allowed ? reply.status >= 400 : reply.status !== 403)
            fail(`embed visitor '${rule.embed}' not as the policy says`);
          continue;
        }
        if (!who.principal) {
          if (reply.status !== 401) fail('no credential, not 401');
          if (reply.text.includes(SECRET) || reply.text.includes(PRIVATE)) fail("the owner's data");
          continue;
        }
        if (typeof rule === 'object' && 'appProxy' in rule) continue; // (no controller's: appProxyMatrix)
        const action = typeof rule === 'string' ? rule : rule.each;
        const principal = who.principal as UserPrincipal;
        const allowed = authorize(principal, action, resourceFor(action, principal, f, route)).allow;
        if (allowed) allowedCases++;
        // A session token is exactly the intersection of what its App may and what its person may signed in: the
        // policy's own answer is checked against both, not only the api's answer against the policy's.
        const token = who.principal as PolicyPrincipal;
        if (token.kind === 'appToken' && token.user) {
          const { user, ...app } = token;
          const person = { kind: 'session', userId: user.userId, isAdmin: user.isAdmin } as const;
          // Without an Agent (the standalone bridge) the person's side is calling models, as their own key may.
          const personMay =
            action === 'app.standalone'
              ? authorize(
                  {
                    kind: 'apiKey',
                    userId: user.userId,
                    keyId: 'own',
                    isAdmin: false,
                    grants: { kind: 'all' },
                  },
                  'model.call',
                  null,
                ).allow
              : authorize(person, action, resourceFor(action, person, f, route)).allow;
          const both = authorize(app, action, resourceFor(action, app, f, route)).allow && personMay;
          if (both !== allowed) fail(`the policy's '${action}' is not the App's and the person's together`);
        }
        const sent = `${request.path} ${JSON.stringify(request.body ?? '')} ${request.multipart && request.method === 'POST' ? f.agentId : ''}`;
        const { ids, texts } = hidden(principal);
        const leaks =
          texts.some((text) => reply.text.includes(text)) ||
          ids.some((id) => reply.text.includes(id) && !sent.includes(id));
        if (allowed) {
          if (reply.status < 300) succeeded++;
          if (reply.status === 401 || reply.status === 403) fail(`allowed '${action}', refused`);
        } else if (typeof rule === 'string') {
          // The compatible gateway takes keys only: a session there is not authenticated (401).
          const keysOnly = who.cookie !== undefined && request.path.startsWith('/api/compat/');
          // An Agent is created only in a Space the caller may change: an unseen one is 400 `unknown_space`.
          const unknownSpace =
            action === 'agent.create' && reply.status === 400 && reply.text.includes('"unknown_space"');
          if (
            reply.status !== 403 &&
            reply.status !== 404 &&
            !(keysOnly && reply.status === 401) &&
            !unknownSpace
          )
            fail(`denied '${action}', not 403/404`);
          if (reply.status < 300 && request.method !== 'GET') changes++;
          if (leaks) fail(`denied '${action}', the owner's data`);
        } else if (leaks) fail(`a list filtered by '${action}' shows the owner's data`);
      }
    }
    failures.push(...proxy.failures);
    process.stdout.write(
      `authorization matrix: ${routes.length} routes × ${principals.length} principals ` +
        `(the bridge's × ${bridgePrincipals.length} Apps and session tokens) = ${cases} cases, ` +
        `+ the App proxy ${proxy.cases} cases, ` +
        `${failures.length} leaks, ${changes} unauthorised changes ` +
        `(${allowedCases} allowed cases, ${succeeded} of them answered 2xx)\n`,
    );
    expect(failures).toEqual([]);
    expect(changes).toBe(0);
    // Over 1,500 requests, one after the other (the bridge's routes called as Apps too): more than the default 30 s
    // when the machine is shared.
  }, 300_000);
});
