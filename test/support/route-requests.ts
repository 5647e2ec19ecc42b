// The requests the generated route tests send (the authorization matrix, the Idempotency-Key retries): people
// invited and signed in, an owner's fixtures (a Space, an Agent in it, a document, a tag, a conversation, a memory, a
// Skill, a prompt, a spare key and App), a valid-shaped request for every registered route, and the order they run in.
import type { SpaceRole } from '#access';
import { strToU8, zipSync } from 'fflate';
import { client, CORE, uniqueName } from './api.js';

/** In the names and texts of the owner's Space, Agent, document and Skill: for whoever may use the Agent. */
export const SECRET = 'MATRIX-SECRET-5d1c';
/** In the owner's own conversation and memory: the owner's alone. */
export const PRIVATE = 'MATRIX-PRIVATE-93be';

export interface Fixtures {
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
export const runsLast = (method: string, path: string) =>
  method === 'DELETE' || path.endsWith('/leave') || path.includes('/auth/sign-out');

export const deleteRank = (path: string) => {
  const rank = DELETE_ORDER.findIndex((suffix) => path.endsWith(suffix));
  return rank === -1 ? DELETE_ORDER.indexOf('/auth/sign-out') - 0.5 : rank;
};

/** The order routes run in: everything else first, then deletions, leaving a Space and signing out (DELETE_ORDER). */
export const inRunOrder = (routes: readonly string[]): string[] =>
  routes.toSorted((a, b) => {
    const [ma, pa] = a.split(' ') as [string, string];
    const [mb, pb] = b.split(' ') as [string, string];
    const da = runsLast(ma, pa) ? 1 : 0;
    const db = runsLast(mb, pb) ? 1 : 0;
    return da - db || (da === 1 ? deleteRank(pa) - deleteRank(pb) : 0);
  });

/** Who sends a request: a key (an App token as a bearer), a session cookie, or nobody. */
export interface Sender {
  readonly key: string | null;
  readonly cookie?: string;
}

export interface RouteRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly multipart: string | null;
}

/** The helpers bound to a running api's URL (the admin key makes the people, keys and Apps). */
export function routeRequests(apiUrl: string) {
  const issueKey = async (
    agents: 'all' | string[],
    label: string,
    email = `${label}-${Date.now()}@example.com`,
  ) => {
    const reply = await client(apiUrl).post<{ id: string; key: string; ownerUserId: string }>(
      `${CORE}/api-keys`,
      { name: uniqueName(label), owner: { email }, agents },
    );
    expect(reply.status).toBe(201);
    return reply.body;
  };

  const registerApp = async (label: string, enablement: unknown) => {
    const reply = await client(apiUrl).post<{ id: string; token: string }>(`${CORE}/apps`, {
      name: uniqueName(label),
      source: { type: 'url', url: 'http://127.0.0.1:9' },
      enablement,
    });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  /** A person invited (a member, or an admin) and signed in: their session cookie, and their own key granted `all`. */
  const person = async (label: string, role: 'member' | 'admin' = 'member') => {
    const email = `${label}-${Date.now()}@example.com`;
    const invitation = await client(apiUrl).post<{ link: string }>(`${CORE}/invitations`, { email, role });
    expect(invitation.status).toBe(201);
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1] ?? '');
    const accepted = await client(apiUrl, null).post<{ id: string }>(`${CORE}/invitations/accept`, {
      token,
      name: label,
      password: 'a long matrix passphrase',
    });
    expect(accepted.status).toBe(201);
    const cookie = /ap_session=[A-Za-z0-9_-]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
    const key = await client(apiUrl, null).post<{ id: string; key: string }>(
      `${CORE}/me/api-keys`,
      { name: `${label} key`, agents: 'all', usageLimit: { tokens: 1_000_000_000, window: 'month' } },
      { cookie, origin: apiUrl },
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
    const as = client(apiUrl, ownerKey);
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
  const requestFor = (route: string, f: Fixtures): RouteRequest => {
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
      [`PUT ${CORE}/settings/people-directory`]: { open: false },
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
      [`PUT ${CORE}/llm/{agentId}/conversation/{conversationId}/head`]: { messageId: f.messageId },
      [`POST ${CORE}/llm/{agentId}/conversation/{conversationId}/tool-calls/{callId}`]: { decision: 'deny' },
      [`POST ${CORE}/llm/{agentId}/conversation/{conversationId}/elicitations/{elicitationId}`]: {
        action: 'decline',
      },
      [`PATCH ${CORE}/agents/{agentId}/tools/{name}`]: { enabled: false },
      [`POST ${CORE}/llm/{agentId}/conversation/{conversationId}/app-tools/{name}`]: {
        messageId: f.messageId,
        arguments: {},
      },
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
      [`POST ${CORE}/apps/{appId}/oauth/connect`]: { returnTo: '/apps' },
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
      [`GET ${CORE}/mcp-views/{agentId}/{appId}`]: '?uri=ui://matrix/view.html',
      [`GET ${CORE}/apps/oauth/callback`]: '?state=bWF0cml4.bWF0cml4.nonce&code=matrix',
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
    who: Sender,
    request: RouteRequest,
    f: Fixtures,
    extraHeaders: Record<string, string> = {},
  ) => {
    let body: string | FormData | undefined;
    // App tokens and session tokens (`svc_`) are the bridge's bearers; anything else is an API key.
    const headers: Record<string, string> = who.key
      ? who.key.startsWith('apt_') || who.key.startsWith('svc_')
        ? { authorization: `Bearer ${who.key}` }
        : { 'x-api-key': who.key }
      : who.cookie
        ? { cookie: who.cookie, origin: apiUrl }
        : {};
    Object.assign(headers, extraHeaders);
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
    const response = await fetch(`${apiUrl}${request.path}`, { method: request.method, headers, body });
    return { status: response.status, text: await response.text(), headers: response.headers };
  };

  return { issueKey, registerApp, person, fixtures, requestFor, call };
}
