// The authorization matrix, generated from the routes the application registers: every route × every kind of
// principal (no credential, a key not granted the fixture Agent, a key granted it (uses it, does not manage it), its
// owner's key, an admin key), against fixtures the owner made (a Space, an Agent in it, a Space document, a tag, a
// conversation, a memory, a Skill). A route without a row in the authorization table (ROUTE_AUTHORIZATION, #identity)
// fails the test, as does a row for a route that does not exist. The expected answer is the policy's own decision
// for that principal, action and fixture: denied → 403 or 404, never a success, never the fixture's data; allowed →
// neither 401 nor 403; no credential → 401 (public routes: answered); never a 5xx. The bridge's routes
// (`/api/v1/bridge/...`) take App tokens only: they are called as Apps (enabled for the fixture Agent, globally, for
// no Agent) instead of keys.
import {
  authorize,
  ROUTE_AUTHORIZATION,
  type Action,
  type ApiKeyPrincipal,
  type AppTokenPrincipal,
  type Resources,
  type RouteRule,
} from '#identity';
import { strToU8, zipSync } from 'fflate';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import { registeredRoutes } from './support/routes.js';

/** In the names and texts of the owner's Space, Agent, document and Skill: for whoever may use the Agent. */
const SECRET = 'MATRIX-SECRET-5d1c';
/** In the owner's own conversation and memory: the owner's alone. */
const PRIVATE = 'MATRIX-PRIVATE-93be';

interface Principal {
  readonly label: string;
  readonly key: string | null;
  /** The policy's view of it; null for no credential. */
  readonly principal: ApiKeyPrincipal | AppTokenPrincipal | null;
}

const BRIDGE = '/api/v1/bridge/';

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
  readonly spareKeyId: string;
  readonly ownerKeyId: string;
  readonly appId: string;
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
  '/cost-control/{apiKeyId}',
  '/api-keys/{apiKeyId}',
  '/agents/{agentId}',
  '/spaces/{spaceId}',
];

const deleteRank = (path: string) => {
  const rank = DELETE_ORDER.findIndex((suffix) => path.endsWith(suffix));
  return rank === -1 ? DELETE_ORDER.length : rank;
};

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

  /** The owner's things, every one of them named or filled with SECRET. */
  const fixtures = async (ownerKey: string, ownerKeyId: string): Promise<Fixtures> => {
    const as = client(api.url, ownerKey);
    const created = async <T = { id: string }>(path: string, body: unknown): Promise<T> => {
      const reply = await as.post<T>(path, body);
      if (reply.status !== 201 && reply.status !== 200)
        throw new Error(`fixture ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    };
    const space = await created(`${CORE}/spaces`, { name: `${SECRET} ${uniqueName('space')}` });
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
    const spare = await issueKey([], 'spare');
    const app = await registerApp('spare', { kind: 'agents', agentIds: [] });
    return {
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
      proposalId: 'prp_matrix0000000000',
      model: 'offline-chat',
      asset: 'swagger-ui.css',
    };
    const path = template.replace(/\{(\w+)\}/g, (_all, name: string) => params[name] ?? name);
    const messages = [{ role: 'user', content: 'what do you know?' }];
    const bodies: Record<string, unknown> = {
      [`POST ${CORE}/spaces`]: { name: uniqueName('matrix space') },
      [`PATCH ${CORE}/spaces/{spaceId}`]: { description: 'changed' },
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
    key: string | null,
    request: { method: string; path: string; body: unknown; multipart: string | null },
    f: Fixtures,
  ) => {
    let body: string | FormData | undefined;
    const headers: Record<string, string> = !key
      ? {}
      : key.startsWith('apt_')
        ? { authorization: `Bearer ${key}` }
        : { 'x-api-key': key };
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

  /** What the action needs to know of the fixtures, as the policy reads it. */
  const resourceFor = (
    action: Action,
    principal: Parameters<typeof authorize>[0],
    f: Fixtures,
  ): Resources[Action] => {
    const agent = {
      id: f.agentId,
      isPersonal: false,
      ownerUserId: null,
      spaceId: f.spaceId,
      isPublic: false,
    };
    const space = { id: f.spaceId, createdByApiKeyId: f.ownerKeyId };
    switch (action) {
      case 'agent.manage':
      case 'memory.shared.write':
        return { agent, space };
      case 'knowledge.write':
        return { agent, space, scope: 'space' };
      case 'space.read':
        return { space, holdsReachableAgent: authorize(principal, 'agent.use', agent).allow };
      case 'space.change':
        return space;
      case 'skill.read':
      case 'skill.change':
        return { kind: 'agent', agent, space };
      case 'agent.use':
      case 'knowledge.read':
      case 'knowledge.tag':
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
    const stale = Object.keys(ROUTE_AUTHORIZATION).filter((route) => !routes.includes(route));
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });

    const owner = await issueKey('all', 'owner');
    const f = await fixtures(owner.key, owner.id);
    const granted = await issueKey([f.agentId], 'granted');
    const notGranted = await issueKey([], 'stranger');
    const principals: Principal[] = [
      { label: 'no credential', key: null, principal: null },
      { label: 'key not granted the Agent', key: notGranted.key, principal: keyPrincipal(notGranted, []) },
      { label: 'key granted the Agent', key: granted.key, principal: keyPrincipal(granted, [f.agentId]) },
      { label: "the owner's key", key: owner.key, principal: keyPrincipal(owner, 'all') },
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
    const hidden = (principal: ApiKeyPrincipal | AppTokenPrincipal) => {
      const own = principal.kind === 'apiKey' && principal.keyId === f.ownerKeyId;
      const may = (action: Action) => authorize(principal, action, resourceFor(action, principal, f)).allow;
      const ids = [
        ...(may('space.read') ? [] : [f.spaceId]),
        ...(may('agent.use') ? [] : [f.agentId, f.documentId, f.tagId]),
        ...(may('skill.read') ? [] : [f.skillId]),
        ...(own ? [] : [f.conversationId, f.messageId, f.memoryId]),
      ];
      const texts = [...(may('agent.use') ? [] : [SECRET]), ...(own ? [] : [PRIVATE])];
      return { ids, texts };
    };
    const ordered = routes.toSorted((a, b) => {
      const [ma, pa] = a.split(' ') as [string, string];
      const [mb, pb] = b.split(' ') as [string, string];
      const da = ma === 'DELETE' ? 1 : 0;
      const db = mb === 'DELETE' ? 1 : 0;
      return da - db || (da === 1 ? deleteRank(pa) - deleteRank(pb) : 0);
    });

    const failures: string[] = [];
    let cases = 0;
    let succeeded = 0;
    let allowedCases = 0;
    for (const route of ordered) {
      const rule: RouteRule = ROUTE_AUTHORIZATION[route]!;
      for (const who of route.split(' ')[1]!.startsWith(BRIDGE) ? bridgePrincipals : principals) {
        const request = requestFor(route, f);
        const reply = await call(who.key, request, f);
        cases++;
        const fail = (why: string) =>
          failures.push(`${route} as ${who.label}: ${why} (${reply.status} ${reply.text.slice(0, 200)})`);
        if (reply.status >= 500) fail('a 5xx');
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
        const action = typeof rule === 'string' ? rule : rule.each;
        const allowed = authorize(who.principal, action, resourceFor(action, who.principal, f)).allow;
        if (allowed) allowedCases++;
        const sent = `${request.path} ${JSON.stringify(request.body ?? '')} ${request.multipart && request.method === 'POST' ? f.agentId : ''}`;
        const { ids, texts } = hidden(who.principal);
        const leaks =
          texts.some((text) => reply.text.includes(text)) ||
          ids.some((id) => reply.text.includes(id) && !sent.includes(id));
        if (allowed) {
          if (reply.status < 300) succeeded++;
          if (reply.status === 401 || reply.status === 403) fail(`allowed '${action}', refused`);
        } else if (typeof rule === 'string') {
          if (reply.status !== 403 && reply.status !== 404) fail(`denied '${action}', not 403/404`);
          if (leaks) fail(`denied '${action}', the owner's data`);
        } else if (leaks) fail(`a list filtered by '${action}' shows the owner's data`);
      }
    }
    process.stdout.write(
      `authorization matrix: ${routes.length} routes × ${principals.length} principals = ${cases} cases, ` +
        `${failures.length} leaks (${allowedCases} allowed cases, ${succeeded} of them answered 2xx)\n`,
    );
    expect(failures).toEqual([]);
    // Over 700 requests, one after the other (the bridge's routes called as Apps too): more than the default 30 s
    // when the machine is shared.
  }, 120_000);
});
