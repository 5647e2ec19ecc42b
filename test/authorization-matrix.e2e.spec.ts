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
} from '#access';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
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

/**
 * A real App on loopback, registered: it answers its `/meta` and keeps the headers of every other request the proxy
 * brings it (`seen`), so a test sees what reached the App, the `svc_session_token` of a signed-in person included.
 */
async function recordingApp(base: string, label: string, enablement?: unknown) {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    if (request.url === '/meta') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: `matrix-${label}`, name: `Matrix ${label}` }));
      return;
    }
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('the App');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const registered = await client(base).post<{ id: string }>(`${CORE}/apps`, {
    name: uniqueName(`matrix ${label}`),
    source: { type: 'url', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    ...(enablement ? { enablement } : {}),
  });
  if (registered.status !== 201) {
    server.close();
    throw new Error(`the ${label} App: ${registered.status}`);
  }
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  };
  return { appId: registered.body.id, seen, close };
}

// The App proxy's row (APP_PROXY_ROUTE, a raw route Nest does not list): every principal × each session-only sub-path
// and a public one, through the real proxy to a real App on loopback. A session-only sub-path reaches the App for a
// signed-in person only (keys and App tokens are no person there: 401 `session_required`, the App never reached); a
// public one reaches it for everyone, carrying none of the caller's credentials and a `svc_session_token` only for a
// person.
async function appProxyMatrix(
  base: string,
  principals: readonly Principal[],
): Promise<{ readonly cases: number; readonly failures: string[] }> {
  const { appId, seen, close } = await recordingApp(base, 'proxy');
  try {
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
        const response = await fetch(`${base}/app/${appId}${path}`, { headers });
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
    await close();
  }
}

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

  /**
   * A global App that keeps the `svc_session_token` the proxy sends it for each person: the tokens the bridge's
   * matrix calls with, obtained as an App obtains them (a person opens the App signed in).
   */
  const witnessApp = async () => {
    const app = await recordingApp(api.url, 'witness', { kind: 'global' });
    const tokenOf = async (cookie: string): Promise<string> => {
      const before = app.seen.length;
      const opened = await fetch(`${api.url}/app/${app.appId}/`, { headers: { cookie } });
      await opened.text();
      expect(opened.status).toBe(200);
      expect(app.seen.length).toBe(before + 1);
      const token = app.seen.at(-1)!.svc_session_token;
      expect(typeof token).toBe('string');
      return token as string;
    };
    return { appId: app.appId, tokenOf, close: app.close };
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
        const reply = await call({ key: token }, request, f);
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
    const ordered = inRunOrder(routes);

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
          // The compatible gateway and the MCP endpoint take keys only: a session there is not authenticated (401).
          const keysOnly =
            who.cookie !== undefined && (request.path.startsWith('/api/compat/') || request.path === '/mcp');
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
