// Apps (issue 24): a small App server on loopback with a `/meta`, registered by an admin; the App proxy's session
// rule (only /admin, /user, /knowledge, /standalone need a session), the svc_ headers, no platform credential reaching
// the App, a standalone App at /app/{id}; the bridge with the App token and the svc_session_token (an Agent outside
// the allowlist 403, a new Agent joining a global App's allowlist without a step), /api/v1/admin → 307.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from './support/api.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The App: answers /meta, and echoes every other request (what it saw) as JSON. */
function startApp(meta: Record<string, unknown>): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.url === '/meta') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(meta));
        return;
      }
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response
        .writeHead(200, {
          'content-type': 'application/json',
          // The platform's cookies under other spellings (issue 42), and the App's own with a path and domain.
          'set-cookie': [
            'ap_session=forged; Path=/',
            'ap_session =evil; Path=/api/v1/core',
            'AP_OIDC=attacker-flow; Path=/api/v1/core/auth/oidc',
            '__Host-ap_session=evil; Path=/; Secure',
            '%61p_session=evil; Path=/',
            'app_own=1; Path=/app; Domain=127.0.0.1',
          ],
        })
        .end(JSON.stringify({ path: request.url, body }));
    });
  });
  // Websockets: echoes each message, after a first one naming the svc_ headers of the upgrade.
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, request) => {
    socket.send(
      JSON.stringify({
        path: request.url,
        base: request.headers.svc_base_path,
        session: request.headers.svc_session_token ?? null,
        cookie: request.headers.cookie ?? null,
      }),
    );
    socket.on('message', (data) => socket.send(`echo: ${String(data)}`));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server }),
    ),
  );
}

const PASSWORD = 'a long passphrase 4 apps';

describe('Apps: registry, proxy and bridge (e2e)', () => {
  let api: TestApi;
  let admin: ReturnType<typeof client>;
  let app: Awaited<ReturnType<typeof startApp>>;
  let standaloneApp: Awaited<ReturnType<typeof startApp>>;
  let cookie: string;

  beforeAll(async () => {
    api = await startTestApi({ APP_ORIGIN: 'http://apps.localhost' });
    admin = client(api.url);
    app = await startApp({ id: 'notes', name: 'Notes', standalone: false, views: [], tools: [] });
    standaloneApp = await startApp({ id: 'board', name: 'Board', standalone: true });
    // A person signed in: invited, accepted (which signs in).
    const invitation = await admin.post<{ link: string }>(`${CORE}/invitations`, {
      email: 'app-user@example.com',
      role: 'member',
    });
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1]!);
    const accepted = await fetch(`${api.url}${CORE}/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name: 'Ada App', password: PASSWORD }),
    });
    await accepted.text();
    cookie = /ap_session=[^;]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
  });
  afterAll(async () => {
    await api.close();
    for (const server of [app.server, standaloneApp.server]) {
      server.closeAllConnections();
      server.close();
    }
  });

  const register = (body: Record<string, unknown>) =>
    admin.post<{ id: string; token: string; meta: { id: string } | null; lastError: string | null }>(
      `${CORE}/apps`,
      body,
    );
  const newSpace = async () =>
    (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: `Apps ${Math.random()}` })).body.id;
  const newAgent = async (spaceId: string, name: string) =>
    (await admin.post<{ id: string }>(`${CORE}/agents`, { spaceId, name })).body.id;
  const raw = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}`, init);
  const json = async (response: Response) => JSON.parse(await response.text()) as Record<string, unknown>;

  it('registers an App by URL: /meta read and recorded; an unreachable one and a container without an engine show lastError', async () => {
    const registered = await register({ name: 'Notes', source: { type: 'url', url: app.url } });
    expect(registered.status).toBe(201);
    expect(registered.body.token).toMatch(/^apt_/);
    expect(registered.body.meta).toMatchObject({ id: 'notes', standalone: false });
    expect(registered.body.lastError).toBeNull();
    const listed = await admin.get<{ data: Record<string, unknown>[] }>(`${CORE}/apps`);
    expect(JSON.stringify(listed.body)).not.toContain(registered.body.token);
    expect(JSON.stringify(listed.body)).not.toContain('tokenHash');

    const unreachable = await register({ name: 'Gone', source: { type: 'url', url: 'http://127.0.0.1:9' } });
    expect(unreachable.status).toBe(201);
    expect(unreachable.body.lastError).toMatch(/\/meta/);

    const container = await admin.post<{ id: string; lastError: string | null }>(`${CORE}/apps`, {
      name: 'Boxed',
      source: { type: 'container', image: 'example/app:1', port: 8080 },
      registryCredentials: { username: 'bot', password: 'registry-secret-canary' },
    });
    expect(container.status).toBe(201);
    expect(container.body.lastError).toMatch(/container engine|Docker/i);
    expect(JSON.stringify(container.body)).not.toContain('registry-secret-canary');
    expect(api.logs()).not.toContain('registry-secret-canary');

    const member = client(api.url, null);
    expect((await member.get(`${CORE}/apps`, { cookie })).status).toBe(403);
  });

  it('proxies /app/{id}: session paths 401 without a session and 200 with one; other paths reach the App without one', async () => {
    const { body } = await register({ name: 'Notes 2', source: { type: 'url', url: app.url } });
    const admin401 = await raw(`/app/${body.id}/admin`);
    expect(admin401.status).toBe(401);
    expect((await json(admin401)).error).toMatchObject({ code: 'session_required' });
    for (const path of ['user', 'knowledge/x', 'standalone'])
      expect((await raw(`/app/${body.id}/${path}`).then(async (r) => (await r.text(), r))).status).toBe(401);

    const before = app.seen.length;
    const signedIn = await raw(`/app/${body.id}/admin?tab=1`, {
      headers: { cookie: `${cookie}; app_own=1`, 'x-api-key': ADMIN_KEY },
    });
    expect(signedIn.status).toBe(200);
    expect(await json(signedIn)).toMatchObject({ path: '/admin?tab=1' });
    // Whatever its spelling, a platform cookie set by the App is dropped; the App's own passes, kept to its path.
    expect(signedIn.headers.getSetCookie()).toEqual([`app_own=1; Path=/app/${body.id}/`]);
    const seen = app.seen[before]!;
    expect(seen.headers.svc_session_token).toMatch(/^svc_/);
    expect(seen.headers.svc_server_url).toBe(api.url);
    expect(seen.headers.svc_base_path).toBe(`/app/${body.id}`);
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-api-key']).toBeUndefined();

    const webhook = await raw(`/app/${body.id}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: 'raw-bytes-not-json',
    });
    expect(webhook.status).toBe(200);
    expect(await json(webhook)).toMatchObject({ path: '/webhook', body: 'raw-bytes-not-json' });
    expect(app.seen.at(-1)!.headers.svc_session_token).toBeUndefined();
    expect(app.seen.at(-1)!.headers.svc_base_path).toBe(`/app/${body.id}`);

    expect((await raw('/app/app_nope/webhook').then(async (r) => (await r.text(), r))).status).toBe(404);
  });

  /** A request sent as written (fetch would resolve dot segments and backslashes itself), its status and body. */
  const exact = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = new URL(api.url);
      httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += String(chunk)));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
        .on('error', reject)
        .end();
    });

  it('decides the session rule on one normalised path: every spelling of the red-team run is 401 or 400, never the App', async () => {
    const { body } = await register({ name: 'Paths', source: { type: 'url', url: app.url } });
    const cases: [string, number][] = [
      ['/ADMIN', 401],
      ['/User', 401],
      ['//admin', 401],
      ['/%61dmin', 401],
      ['/admin;x', 401],
      ['/user%20', 401],
      ['/x/../admin', 401],
      ['/x/..;/knowledge', 401],
      ['/%2fadmin', 400],
      ['/admin%2fx', 400],
      ['/admin%00', 400],
      ['/x/..%2fadmin', 400],
      ['/x/..%5cadmin', 400],
      ['/x\\admin', 400],
      ['/%2561dmin', 400],
      ['/../other-app', 400],
    ];
    // Not percent-encoding at all: the router refuses it before the proxy (400 `invalid_url`).
    for (const path of ['/%ZZ', '/%E0%A4%A']) {
      const answer = await exact(`/app/${body.id}${path}`);
      expect([path, answer.status, JSON.parse(answer.body).error?.code]).toEqual([path, 400, 'invalid_url']);
    }
    const before = app.seen.length;
    const answers = await Promise.all(cases.map(([path]) => exact(`/app/${body.id}${path}`)));
    expect(answers.map((answer, index) => [cases[index]![0], answer.status])).toEqual(cases);
    for (const [index, answer] of answers.entries())
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { code: cases[index]![1] === 401 ? 'session_required' : 'invalid_app_path' },
      });
    expect(app.seen.length).toBe(before);

    // Signed in, the App gets exactly the path that was decided on.
    for (const [path, forwarded] of [
      ['/%61dmin;jsessionid=1/x/../y?tab=1', '/admin/y?tab=1'],
      ['//User%20/./notes/', '/User/notes/'],
    ] as const) {
      const answer = await exact(`/app/${body.id}${path}`, { cookie });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ path: forwarded });
    }
  });

  it("the App sees only the proxy's svc_ and forwarding headers: svc_server_url is the platform's URL, never the Host", async () => {
    const { body } = await register({ name: 'Headers', source: { type: 'url', url: app.url } });
    const before = app.seen.length;
    const answer = await exact(`/app/${body.id}/hook`, {
      host: 'evil.example',
      'svc-session-token': 'svc_forged',
      'svc-server-url': 'http://evil.example',
      'SVC-Base-Path': '/forged',
      'x-embed-session': 'visitor-secret',
      'x-forwarded-for': '10.6.6.6',
      'x-forwarded-host': 'evil.example',
      forwarded: 'for=10.6.6.6;host=evil.example',
    });
    expect(answer.status).toBe(200);
    const seen = app.seen[before]!.headers;
    expect(seen.svc_server_url).toBe(api.url);
    expect(seen.svc_base_path).toBe(`/app/${body.id}`);
    expect(JSON.stringify(seen)).not.toMatch(/forged|evil\.example|visitor-secret|10\.6\.6\.6/);
    expect(Object.keys(seen).filter((name) => /^(svc|x-forwarded|forwarded|x-embed)/i.test(name))).toEqual([
      'svc_server_url',
      'svc_base_path',
    ]);
  });

  it("isolates App documents: sandboxed (opaque origin) on the platform's origin, their own on APP_ORIGIN", async () => {
    const { body } = await register({ name: 'Isolated', source: { type: 'url', url: app.url } });
    const onPlatform = await raw(`/app/${body.id}/view`);
    await onPlatform.text();
    expect(onPlatform.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);
    expect(onPlatform.headers.get('content-security-policy')).not.toContain('allow-same-origin');
    // The same App reached on the App origin (its Host): no sandbox needed, it is another origin.
    const onAppOrigin = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const { port } = new URL(api.url);
      httpRequest(
        { host: '127.0.0.1', port, path: `/app/${body.id}/view`, headers: { host: 'apps.localhost' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        },
      )
        .on('error', reject)
        .end();
    });
    expect(onAppOrigin['content-security-policy']).toBeUndefined();
  });

  it('upgrades websockets to the App (same session rule, same svc_ headers, no cookie)', async () => {
    const { body } = await register({ name: 'Live', source: { type: 'url', url: app.url } });
    const socket = new WebSocket(`${api.url.replace('http', 'ws')}/app/${body.id}/live?room=1`);
    const messages: string[] = [];
    socket.addEventListener('message', (event) => messages.push(String(event.data)));
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve);
      socket.addEventListener('error', reject);
    });
    socket.send('ping');
    await waitUntil(() => messages.length >= 2);
    expect(JSON.parse(messages[0]!)).toEqual({
      path: '/live?room=1',
      base: `/app/${body.id}`,
      session: null,
      cookie: null,
    });
    expect(messages[1]).toBe('echo: ping');
    socket.close();
    // A session path refuses the upgrade without a session.
    const refused = new WebSocket(`${api.url.replace('http', 'ws')}/app/${body.id}/admin/live`);
    const outcome = await new Promise<string>((resolve) => {
      refused.addEventListener('open', () => resolve('open'));
      refused.addEventListener('error', () => resolve('refused'));
    });
    expect(outcome).toBe('refused');
  });

  it('an App under a path prefix gets its HTTP requests, redirects and websockets under that prefix', async () => {
    // The App lives at http://127.0.0.1:PORT/some/prefix: everything of it is below that path, websockets included.
    const PREFIX = '/some/prefix';
    const server = createServer((request, response) => {
      if (request.url === `${PREFIX}/meta`)
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'prefixed', name: 'Prefixed', views: [], tools: [] }));
      else if (request.url === `${PREFIX}/go`)
        response.writeHead(302, { location: `${PREFIX}/landed` }).end();
      else if (request.url?.startsWith(`${PREFIX}/away?`))
        response
          .writeHead(302, { location: new URL(request.url, 'http://app.invalid').searchParams.get('to')! })
          .end();
      else if (request.url?.startsWith(`${PREFIX}/`))
        response.writeHead(200, { 'content-type': 'text/plain' }).end(`at ${request.url}`);
      else response.writeHead(404).end('outside the prefix');
    });
    const sockets = new WebSocketServer({ noServer: true });
    server.on('upgrade', (request, socket, head) => {
      // Only the App's own paths accept an upgrade; the origin's root is not the App.
      if (!request.url?.startsWith(`${PREFIX}/`)) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        ws.send(`open at ${request.url}`);
        ws.on('message', (data) => ws.send(`echo: ${String(data)}`));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PREFIX}`;
      const { body } = await register({ name: 'Prefixed', source: { type: 'url', url } });
      expect(body.lastError).toBeNull();
      const page = await raw(`/app/${body.id}/page?x=1`);
      expect(await page.text()).toBe(`at ${PREFIX}/page?x=1`);
      const socket = new WebSocket(`${api.url.replace('http', 'ws')}/app/${body.id}/live?room=2`);
      const messages: string[] = [];
      socket.addEventListener('message', (event) => messages.push(String(event.data)));
      await new Promise((resolve, reject) => {
        socket.addEventListener('open', resolve);
        socket.addEventListener('error', reject);
      });
      socket.send('hello');
      await waitUntil(() => messages.length >= 2);
      expect(messages).toEqual([`open at ${PREFIX}/live?room=2`, 'echo: hello']);
      socket.close();
      // A redirect within the App stays under /app/{id}.
      const moved = await raw(`/app/${body.id}/go`, { redirect: 'manual' });
      await moved.text();
      expect(moved.status).toBe(302);
      expect(moved.headers.get('location')).toBe(`/app/${body.id}/landed`);
      // Its own absolute URL is brought under /app/{id} too; anywhere else is refused (502), never redirected to.
      const away = (location: string) =>
        raw(`/app/${body.id}/away?to=${encodeURIComponent(location)}`, { redirect: 'manual' });
      const own = await away(`${url}/landed?x=1`);
      await own.text();
      expect([own.status, own.headers.get('location')]).toEqual([302, `/app/${body.id}/landed?x=1`]);
      for (const location of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/elsewhere']) {
        const refused = await away(location);
        expect([location, refused.status, refused.headers.get('location')]).toEqual([location, 502, null]);
        expect((await json(refused)).error).toMatchObject({ code: 'app_redirect_refused' });
      }
    } finally {
      sockets.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('streams both ways: the App sees the first bytes of an upload before it ends, the person the first of an answer', async () => {
    // Each side waits for the other to have seen its first chunk before sending the rest: a proxy that buffered a
    // whole body would never let either go on.
    let uploadSeen = '';
    let finishAnswer = () => {};
    const server = createServer((request, response) => {
      if (request.url === '/meta') {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'streamer', name: 'Streamer' }));
        return;
      }
      if (request.url === '/upload') {
        request.on('data', (chunk: Buffer) => (uploadSeen += String(chunk)));
        request.on('end', () => response.writeHead(200).end(`received ${uploadSeen}`));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first;');
      finishAnswer = () => response.end('rest');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { body } = await register({ name: 'Streamer', source: { type: 'url', url } });
      const { port } = new URL(api.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const upload = httpRequest(
          { host: '127.0.0.1', port, method: 'POST', path: `/app/${body.id}/upload` },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += String(chunk)));
            response.on('end', () => resolve(text));
          },
        ).on('error', reject);
        upload.write('part-1;');
        void waitUntil(() => uploadSeen === 'part-1;').then(() => upload.end('part-2'), reject);
      });
      expect(answer).toBe('received part-1;part-2');

      const download = await raw(`/app/${body.id}/download`);
      const reader = download.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe('first;');
      finishAnswer();
      let rest = '';
      for (let next = await reader.read(); !next.done; next = await reader.read())
        rest += new TextDecoder().decode(next.value);
      expect(rest).toBe('rest');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("on APP_ORIGIN a view's ticket stands for the person, for its App only, never on the platform's origin, never forwarded", async () => {
    const first = await register({ name: 'Ticketed', source: { type: 'url', url: app.url } });
    const second = await register({ name: 'Other', source: { type: 'url', url: app.url } });
    const before = app.seen.length;
    await raw(`/app/${first.body.id}/user`, { headers: { cookie } }).then((r) => r.text());
    const ticket = encodeURIComponent(app.seen[before]!.headers.svc_session_token as string);
    const { port } = new URL(api.url);
    const onAppOrigin = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port, path, headers: { host: 'apps.localhost' } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += String(chunk)));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        })
          .on('error', reject)
          .end();
      });
    const opened = await onAppOrigin(`/app/${first.body.id}/user/notes?tab=2&svc_session_token=${ticket}`);
    expect(opened.status).toBe(200);
    expect(JSON.parse(opened.body)).toMatchObject({ path: '/user/notes?tab=2' });
    expect(app.seen.at(-1)!.headers.svc_session_token).toMatch(/^svc_/);
    expect((await onAppOrigin(`/app/${second.body.id}/user/notes?svc_session_token=${ticket}`)).status).toBe(
      401,
    );
    const onPlatform = await raw(`/app/${first.body.id}/user/notes?svc_session_token=${ticket}`);
    expect(onPlatform.status).toBe(401);
    await onPlatform.text();
  });

  it('serves a standalone App full-page at /app/{id}', async () => {
    const { body } = await register({ name: 'Board', source: { type: 'url', url: standaloneApp.url } });
    expect(body.meta).toMatchObject({ id: 'board', standalone: true });
    const page = await raw(`/app/${body.id}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await json(page)).toMatchObject({ path: '/standalone' });
    expect((await raw(`/app/${body.id}`).then(async (r) => (await r.text(), r))).status).toBe(401);
  });

  it('serves a standalone App under its /meta id too; that id is unique across Apps (409 at registration and refresh)', async () => {
    const listed = await admin.get<{ data: { id: string; proxyPath: string }[] }>(`${CORE}/apps`);
    const board = listed.body.data.find((one) => one.proxyPath === '/app/board')!;
    expect(board).toBeDefined();
    for (const path of ['/app/board', '/app/Board/', `/app/${board.id}`]) {
      const page = await raw(path, { headers: { cookie } });
      expect([path, page.status]).toEqual([path, 200]);
      expect(await json(page)).toMatchObject({ path: '/standalone' });
    }
    expect((await raw('/app/board').then(async (r) => (await r.text(), r))).status).toBe(401);
    const before = standaloneApp.seen.length;
    const api2 = await raw('/app/board/api/items?x=1');
    expect(api2.status).toBe(200);
    await api2.text();
    expect(standaloneApp.seen[before]!.headers.svc_base_path).toBe('/app/board');

    // Registering another App that declares the same id: 409, and nothing is registered.
    const clash = await register({ name: 'Board again', source: { type: 'url', url: standaloneApp.url } });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ error: { code: 'app_id_taken' } });
    const after = await admin.get<{ data: { name: string }[] }>(`${CORE}/apps`);
    expect(after.body.data.map((one) => one.name)).not.toContain('Board again');

    // An App whose /meta changes to the taken id: its refresh is 409, its meta stays what it was.
    const meta = { id: 'other-board', name: 'Other board', standalone: true };
    const other = await startApp(meta);
    try {
      const second = await register({ name: 'Other board', source: { type: 'url', url: other.url } });
      expect(second.status).toBe(201);
      meta.id = 'BOARD';
      const refreshed = await admin.post(`${CORE}/apps/${second.body.id}/refresh`, {});
      expect(refreshed.status).toBe(409);
      expect(refreshed.body).toMatchObject({ error: { code: 'app_id_taken' } });
      const kept = await admin.get<{ meta: { id: string }; proxyPath: string }>(
        `${CORE}/apps/${second.body.id}`,
      );
      expect(kept.body).toMatchObject({ meta: { id: 'other-board' }, proxyPath: '/app/other-board' });
      // Once the first App is deleted, the id is free.
      expect((await admin.delete(`${CORE}/apps/${board.id}`)).status).toBe(204);
      const freed = await admin.post<{ proxyPath: string }>(`${CORE}/apps/${second.body.id}/refresh`, {});
      expect([freed.status, freed.body.proxyPath]).toEqual([200, '/app/BOARD']);
      const served = other.seen.length;
      await raw('/app/board/x').then((r) => r.text());
      expect(other.seen.length).toBe(served + 1);
    } finally {
      other.server.closeAllConnections();
      other.server.close();
    }
  });

  it('bridge: the App token reaches the Agents of its allowlist only (403 outside); a new Agent joins a global App without a step', async () => {
    const spaceId = await newSpace();
    const inside = await newAgent(spaceId, 'Inside');
    const outside = await newAgent(spaceId, 'Outside');
    const { body } = await register({
      name: 'Chosen',
      source: { type: 'url', url: app.url },
      enablement: { kind: 'agents', agentIds: [inside] },
    });
    const bridge = client(api.url, null);
    const auth = { authorization: `Bearer ${body.token}` };
    const got = await bridge.get(`/api/v1/bridge/agents/${inside}`, auth);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ id: inside, name: 'Inside', model: expect.any(String) });
    const refused = await bridge.get<{ error: { code: string } }>(`/api/v1/bridge/agents/${outside}`, auth);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('agent_access_denied');
    expect((await bridge.get(`/api/v1/bridge/agents/${inside}`)).status).toBe(401);
    expect(
      (await bridge.get(`/api/v1/bridge/agents/${inside}`, { authorization: 'Bearer apt_forged' })).status,
    ).toBe(401);
    // An API key is not a bridge credential.
    expect((await bridge.get(`/api/v1/bridge/agents/${inside}`, { 'x-api-key': ADMIN_KEY })).status).toBe(
      401,
    );

    const text = await bridge.post<{ text: string }>(
      `/api/v1/bridge/agents/${inside}/llm/generateText`,
      { messages: [{ role: 'user', content: 'hello from an App' }] },
      auth,
    );
    expect(text.status).toBe(200);
    expect(typeof text.body.text).toBe('string');

    const global = await register({
      name: 'Everywhere',
      source: { type: 'url', url: app.url },
      enablement: { kind: 'global' },
    });
    const globalAuth = { authorization: `Bearer ${global.body.token}` };
    expect((await bridge.get(`/api/v1/bridge/agents/${outside}`, globalAuth)).status).toBe(200);
    const later = await newAgent(spaceId, 'Later');
    await waitUntil(
      async () => (await bridge.get(`/api/v1/bridge/agents/${later}`, globalAuth)).status === 200,
    );
    expect((await admin.delete(`${CORE}/agents/${later}`)).status).toBe(204);
    await waitUntil(
      async () => (await bridge.get(`/api/v1/bridge/agents/${later}`, globalAuth)).status !== 200,
    );

    // Rotating the token: the old one stops at once.
    const rotated = await admin.post<{ token: string }>(`${CORE}/apps/${global.body.id}/token`);
    expect((await bridge.get(`/api/v1/bridge/agents/${outside}`, globalAuth)).status).toBe(401);
    expect(
      (
        await bridge.get(`/api/v1/bridge/agents/${outside}`, {
          authorization: `Bearer ${rotated.body.token}`,
        })
      ).status,
    ).toBe(200);
  });

  it("bridge: the svc_session_token is the App's and its person's (another user's personal Agent stays out of reach)", async () => {
    const { body } = await register({
      name: 'Personal',
      source: { type: 'url', url: app.url },
      enablement: { kind: 'global' },
    });
    const before = app.seen.length;
    await raw(`/app/${body.id}/admin`, { headers: { cookie } }).then((r) => r.text());
    const sessionToken = app.seen[before]!.headers.svc_session_token as string;
    const bridge = client(api.url, null);
    const auth = { authorization: `Bearer ${sessionToken}` };
    const me = await client(api.url, null).get<{ id: string }>(`${CORE}/users/me`, { cookie });
    const agents = await client(api.url, null).get<{
      data: { id: string; isPersonal: boolean; ownerUserId: string }[];
    }>(`${CORE}/agents?limit=200`, { cookie });
    const mine = agents.body.data.find((agent) => agent.isPersonal && agent.ownerUserId === me.body.id)!;
    expect((await bridge.get(`/api/v1/bridge/agents/${mine.id}`, auth)).status).toBe(200);
    const adminAgents = await admin.get<{ data: { id: string; isPersonal: boolean }[] }>(
      `${CORE}/agents?limit=200`,
    );
    const adminsPersonal = adminAgents.body.data.find((agent) => agent.isPersonal)!;
    expect((await bridge.get(`/api/v1/bridge/agents/${adminsPersonal.id}`, auth)).status).toBe(403);
    // The App token of a global App reaches that personal Agent (Apps rule 3).
    expect(
      (
        await bridge.get(`/api/v1/bridge/agents/${adminsPersonal.id}`, {
          authorization: `Bearer ${body.token}`,
        })
      ).status,
    ).toBe(200);
  });

  it('a svc_session_token ends with the session it was issued for (sign-out)', async () => {
    const invitation = await admin.post<{ link: string }>(`${CORE}/invitations`, {
      email: 'leaving@example.com',
    });
    const accepted = await raw(`${CORE}/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: decodeURIComponent(invitation.body.link.split('#token=')[1]!),
        name: 'Leaving',
        password: PASSWORD,
      }),
    });
    const person = (await json(accepted)) as { id: string };
    const leaving = /ap_session=[^;]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
    const { body } = await register({
      name: 'Until sign-out',
      source: { type: 'url', url: app.url },
      enablement: { kind: 'global' },
    });
    const before = app.seen.length;
    await raw(`/app/${body.id}/user`, { headers: { cookie: leaving } }).then((r) => r.text());
    const auth = { authorization: `Bearer ${app.seen[before]!.headers.svc_session_token as string}` };
    const agents = await client(api.url, null).get<{ data: { id: string; ownerUserId: string }[] }>(
      `${CORE}/agents?limit=200`,
      { cookie: leaving },
    );
    const own = agents.body.data.find((agent) => agent.ownerUserId === person.id)!;
    const bridge = client(api.url, null);
    expect((await bridge.get(`/api/v1/bridge/agents/${own.id}`, auth)).status).toBe(200);
    const signOut = await raw(`${CORE}/auth/sign-out`, {
      method: 'POST',
      headers: { cookie: leaving, origin: api.url },
    });
    expect(signOut.status).toBeLessThan(300);
    await signOut.text();
    await waitUntil(async () => (await bridge.get(`/api/v1/bridge/agents/${own.id}`, auth)).status === 401);
  });

  it('the platform has one version: package.json, the OpenAPI info.version and /health agree', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const health = (await json(await raw('/health'))) as { version: string };
    const openapi = (await json(await raw(`${CORE}/openapi.json`))) as { info: { version: string } };
    expect(health.version).toBe(version);
    expect(openapi.info.version).toBe(version);
    const changelog = readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8');
    expect(changelog).toContain(`## [${version}]`);
  });

  it('/api/v1/admin/... answers 307 to the same path under /api/v1/bridge, method and body kept by the client', async () => {
    const response = await raw('/api/v1/admin/agents/agt_x/llm/generateText?x=1', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('/api/v1/bridge/agents/agt_x/llm/generateText?x=1');
    await response.text();
  });
});
