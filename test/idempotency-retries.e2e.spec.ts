// Every POST route honours `Idempotency-Key` (docs/api/README.md's convention), generated from the routes the application
// registers: each is sent with a key, then retried with the same key (a success is replayed: the same status and body,
// `idempotent-replayed: true`, nothing run again), then with the same key and another request (422
// `idempotency_key_reused`, whether the first succeeded or not). The routes where a retry cannot be a replay are
// listed below with the reason; Developer Settings' keys (issue 42, item 6) are checked for a second live key.
import { ROUTE_AUTHORIZATION } from '#access';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from './support/api.js';
import { inRunOrder, routeRequests, type Sender } from './support/route-requests.js';
import { registeredRoutes } from './support/routes.js';

/** POST routes a retry does not replay, and why. Public and embed-visitor routes have no caller to key a retry to. */
const NOT_REPLAYED: readonly (readonly [RegExp, string])[] = [
  [/^POST \/api\/compat\//, 'a model call: a retried completion is a new one, as upstream gateways treat it'],
  [
    /\/llm\/(\{agentId\}\/)?(generateText|generateObject|generateImage|speech|transcribe)$/,
    'a model call: a retried generation is a new one',
  ],
  [/\/auth\/sign-out(-everywhere)?$/, 'it ends the session the retry would present'],
  [
    /\/llm\/\{agentId\}\/conversation$/,
    "a turn: keyed by the turn's own mechanism (docs/api/conversations.md), which answers a retry with the turn as it is now",
  ],
  [/\/documents\/download$/, 'a read answering a zip: answered again, as the log keeps no file for a replay'],
  [/^POST \/mcp$/, 'the MCP endpoint: JSON-RPC messages carry their own ids, and the protocol keys no retry'],
  [
    /\/apps\/\{appId\}\/oauth\/connect$/,
    'each start is a new authorization with its own single-use state; a retry starts another, the last one counts',
  ],
];

/** Secrets an answer shows once: a replay shows null (the interceptor never records them). */
const withoutSecrets = (text: string): unknown => {
  const body = text ? (JSON.parse(text) as unknown) : null;

  return body && typeof body === 'object' && !Array.isArray(body)
    ? Object.fromEntries(Object.entries(body).filter(([field]) => !['key', 'token', 'link'].includes(field)))
    : body;
};

describe('Idempotency-Key on every POST route (e2e, generated from the registered routes)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('a retried POST is replayed, and the same key with another request is 422, on every route but the listed ones', async () => {
    const { person, fixtures, registerApp, requestFor, call } = routeRequests(api.url);
    const [owner, editor, member] = [await person('owner'), await person('editor'), await person('member')];
    const f = await fixtures(owner.key, owner.keyId, owner.userId, {
      editor: editor.userId,
      member: member.userId,
    });
    const app = await registerApp('retried', { kind: 'agents', agentIds: [f.agentId] });
    const posts = inRunOrder(registeredRoutes(api.app)).filter((route) => {
      const rule = ROUTE_AUTHORIZATION[route]!;
      return (
        route.startsWith('POST ') &&
        rule !== 'public' &&
        !(typeof rule === 'object' && 'embed' in rule) &&
        !NOT_REPLAYED.some(([pattern]) => pattern.test(route))
      );
    });
    expect(posts.length).toBeGreaterThan(30);

    const failures: string[] = [];
    let replayed = 0;
    for (const [index, route] of posts.entries()) {
      const request = requestFor(route, f);
      const idempotencyKey = { 'idempotency-key': `retry-${index}-${Date.now()}` };
      // The owner sends it; what only an administrator may do, the admin key; what only a person signed in may do
      // (linking a provider), the owner's session; the bridge's routes, the App.
      const senders: Sender[] = request.path.startsWith('/api/v1/bridge/')
        ? [{ key: app.token }]
        : [{ key: owner.key }, { key: ADMIN_KEY }, { key: null, cookie: owner.cookie }];
      let sender = senders[0]!;
      let first = await call(sender, request, f, idempotencyKey);
      for (const next of senders.slice(1)) {
        if (first.status !== 401 && first.status !== 403) break;
        sender = next;
        first = await call(sender, request, f, idempotencyKey);
      }
      const fail = (why: string, status: number, text: string) =>
        failures.push(`${route}: ${why} (first ${first.status}; then ${status} ${text.slice(0, 160)})`);
      if (first.status >= 500) fail('a 5xx', first.status, first.text);
      if (first.status < 300) {
        const retry = await call(sender, request, f, idempotencyKey);
        if (retry.headers.get('idempotent-replayed') !== 'true')
          fail('not replayed', retry.status, retry.text);
        else if (
          retry.status !== first.status ||
          JSON.stringify(withoutSecrets(retry.text)) !== JSON.stringify(withoutSecrets(first.text))
        )
          fail('replayed another answer', retry.status, retry.text);
        else replayed++;
      }
      const separator = request.path.includes('?') ? '&' : '?';
      const other = await call(
        sender,
        { ...request, path: `${request.path}${separator}retried=1` },
        f,
        idempotencyKey,
      );
      if (other.status !== 422 || !other.text.includes('"idempotency_key_reused"'))
        fail('the same key with another request is not 422 idempotency_key_reused', other.status, other.text);
    }
    process.stdout.write(
      `idempotency retries: ${posts.length} POST routes, ${replayed} replayed after a success, ` +
        `${failures.length} failures\n`,
    );
    expect(failures).toEqual([]);
    // The OpenAPI document says so on each of them.
    const openapi = await client(api.url).get<{
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    }>(`${CORE}/openapi.json`);
    const undocumented = posts.filter((route) => {
      const parameters = openapi.body.paths[route.slice('POST '.length)]?.post?.parameters ?? [];
      return !parameters.some(({ name, in: where }) => name === 'Idempotency-Key' && where === 'header');
    });
    expect(undocumented).toEqual([]);
  }, 300_000);

  it('Developer Settings: a retried key creation or rotation makes no second live key; another body is 422', async () => {
    const { person } = routeRequests(api.url);
    const ada = await person('ada');
    const asAda = client(api.url, ada.key);
    const body = { name: 'retried', agents: [], usageLimit: { tokens: 1000, window: 'month' } };
    const keyed = { 'idempotency-key': 'create-once' };
    const first = await asAda.post<{ id: string; key: string | null }>(`${CORE}/me/api-keys`, body, keyed);
    const retry = await asAda.post<{ id: string; key: string | null }>(`${CORE}/me/api-keys`, body, keyed);
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual({ ...first.body, key: null });
    const changed = await asAda.post<{ error: { code: string } }>(
      `${CORE}/me/api-keys`,
      { ...body, name: 'changed' },
      keyed,
    );
    expect([changed.status, changed.body.error.code]).toEqual([422, 'idempotency_key_reused']);

    const rotation = { 'idempotency-key': 'rotate-once' };
    const rotated = await asAda.post<{ id: string }>(
      `${CORE}/me/api-keys/${first.body.id}/rotate`,
      {},
      rotation,
    );
    const rotatedAgain = await asAda.post<{ id: string }>(
      `${CORE}/me/api-keys/${first.body.id}/rotate`,
      {},
      rotation,
    );
    expect([rotated.status, rotatedAgain.status]).toEqual([201, 201]);
    expect(rotatedAgain.body.id).toBe(rotated.body.id);
    const live = await asAda.get<{ data: { name: string; revoked: boolean }[] }>(`${CORE}/me/api-keys`);
    expect(live.body.data.filter((key) => key.name === 'retried' && !key.revoked)).toHaveLength(1);
  });
});
