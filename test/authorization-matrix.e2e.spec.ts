// The authorization matrix, generated from the routes the application registers: every route × every kind of
// principal (no credential, a key not granted the fixture Agent, a key granted it (uses it, does not manage it), an
// admin key, and the Space's owner, editor and member and a non-member, each by key (`x-api-key`, granted `all`) and
// signed in (the session cookie)), against fixtures the owner made (a Space, an Agent in it, a Space document, a tag,
// a conversation, a memory, a Skill). A route without a row in the authorization table (ROUTE_AUTHORIZATION, #identity)
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
  type Principal as PolicyPrincipal,
  type Resources,
  type RouteRule,
} from '#identity';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from './support/api.js';
import { inRunOrder, PRIVATE, routeRequests, SECRET, type Fixtures } from './support/route-requests.js';
import { registeredRoutes } from './support/routes.js';

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

describe('authorization matrix (e2e, generated from the registered routes)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

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
    const { issueKey, registerApp, person, fixtures, requestFor, call } = routeRequests(api.url);

    const [owner, editor, member, outsider] = [
      await person('owner'),
      await person('editor'),
      await person('member'),
      await person('outsider'),
    ];
    const made = await fixtures(owner.key, owner.keyId, owner.userId, {
      editor: editor.userId,
      member: member.userId,
    });
    // A key is granted only an Agent its user may use: the grantee is a member of the Agent's Space first.
    const granteeEmail = `grantee-${Date.now()}@example.com`;
    const grantee = await issueKey([], 'grantee', granteeEmail);
    const joined = await client(api.url, owner.key).post(`${CORE}/spaces/${made.spaceId}/members`, {
      userId: grantee.ownerUserId,
      role: 'member',
    });
    expect(joined.status).toBe(201);
    const f: Fixtures = { ...made, members: { ...made.members, [grantee.ownerUserId]: 'member' } };
    const granted = await issueKey([f.agentId], 'granted', granteeEmail);
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
    const ordered = inRunOrder(routes);

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
        const action = typeof rule === 'string' ? rule : rule.each;
        const principal = who.principal as UserPrincipal;
        const allowed = authorize(principal, action, resourceFor(action, principal, f, route)).allow;
        if (allowed) allowedCases++;
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
    process.stdout.write(
      `authorization matrix: ${routes.length} routes × ${principals.length} principals = ${cases} cases, ` +
        `${failures.length} leaks, ${changes} unauthorised changes ` +
        `(${allowedCases} allowed cases, ${succeeded} of them answered 2xx)\n`,
    );
    expect(failures).toEqual([]);
    expect(changes).toBe(0);
    // Over 1,500 requests, one after the other (the bridge's routes called as Apps too): more than the default 30 s
    // when the machine is shared.
  }, 300_000);
});
