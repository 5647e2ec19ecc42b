// In Chromium: an App's view cannot read the platform's cookie or localStorage, nor call the platform's API as the
// person. The platform's origin holds a signed-in session (HttpOnly cookie) and a localStorage entry; the App's view
// is opened through the proxy, top-level and inside an iframe of a platform page that gives it no sandbox of its own
// (the worst case of an embedding page): its script reports what it could reach to the App's server. Skipped, saying
// why, where Chromium is not installed (/usr/bin/chromium).
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { skipWithReason, waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'a long passphrase in chromium';

/** The App's view: tries the platform's cookie, storage and API, and reports to its own server. */
const VIEW = `<!doctype html><meta charset="utf-8"><title>App view</title><script>
(async () => {
  const report = { where: location.pathname, origin: String(self.origin) };
  try { report.cookie = document.cookie; } catch (error) { report.cookie = 'blocked:' + error.name; }
  try { report.storage = localStorage.getItem('platform-secret'); } catch (error) { report.storage = 'blocked:' + error.name; }
  try {
    const me = await fetch('/api/v1/core/users/me', { credentials: 'include' });
    report.api = me.status;
  } catch (error) { report.api = 'blocked:' + error.name; }
  await fetch(location.pathname.replace(/\\/user.*$/, '/report'), { method: 'POST', mode: 'no-cors', body: JSON.stringify(report) });
})();
</script>`;

const describeIf = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM))
  skipWithReason('App isolation in Chromium', `${CHROMIUM} is not installed (the web app's CI installs it)`);

describeIf('App isolation in Chromium (e2e)', () => {
  let api: TestApi;
  let appServer: Server;
  const reports: Record<string, unknown>[] = [];
  let browser: import('playwright-core').Browser;

  beforeAll(async () => {
    api = await startTestApi();
    appServer = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/meta') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ id: 'spy', name: 'Curious App' }));
        } else if (request.url === '/report') {
          reports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
          response.writeHead(204).end();
        } else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(VIEW);
      });
    });
    await new Promise<void>((done) => appServer.listen(0, '127.0.0.1', done));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await api.close();
    appServer.closeAllConnections();
    appServer.close();
  });

  it("an App view, top-level or in a platform page's iframe, reads no platform cookie or storage and cannot call the API as the person", async () => {
    const admin = client(api.url);
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Curious App',
      source: { type: 'url', url: `http://127.0.0.1:${(appServer.address() as AddressInfo).port}` },
      enablement: { kind: 'global' },
    });
    expect(app.status).toBe(201);
    const invitation = await admin.post<{ link: string }>(`${CORE}/invitations`, {
      email: 'iso@example.com',
    });
    const accepted = await fetch(`${api.url}${CORE}/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: decodeURIComponent(invitation.body.link.split('#token=')[1]!),
        name: 'Iso',
        password: PASSWORD,
      }),
    });
    await accepted.text();
    const secret = /ap_session=([^;]+)/.exec(accepted.headers.get('set-cookie') ?? '')![1]!;

    const context = await browser.newContext();
    await context.addCookies([
      { name: 'ap_session', value: secret, url: api.url, httpOnly: true, sameSite: 'Lax' },
      // A cookie the platform's scripts could read (not HttpOnly): the App must not see it either.
      { name: 'platform_visible', value: 'readable-by-platform-scripts', url: api.url, sameSite: 'Lax' },
    ]);
    const page = await context.newPage();
    // The platform's origin: its storage holds a secret, and the person is signed in.
    await page.goto(`${api.url}/health`);
    // (Expressions as text: they run in the browser, where the DOM is; this file compiles without it.)
    await page.evaluate("localStorage.setItem('platform-secret', 'platform-storage-secret')");
    expect(await page.evaluate('document.cookie')).toContain('platform_visible');
    const me = await page.evaluate("fetch('/api/v1/core/users/me').then((answer) => answer.status)");
    expect(me).toBe(200);

    // Top-level: the App's view through the proxy (a session path).
    await page.goto(`${api.url}/app/${app.body.id}/user/top`);
    await waitUntil(() => reports.length >= 1, 15_000);
    // Inside an iframe of a platform page that sandboxes nothing itself.
    await page.goto(`${api.url}/health`);
    await page.evaluate(
      `document.body.append(Object.assign(document.createElement('iframe'), { src: '/app/${app.body.id}/user/framed' }))`,
    );
    await waitUntil(() => reports.length >= 2, 15_000);
    await context.close();

    for (const report of reports) {
      expect(report.origin).toBe('null'); // an opaque origin, not the platform's
      expect(String(report.cookie)).not.toContain('platform_visible');
      expect(String(report.cookie)).not.toContain(secret);
      expect(report.storage).not.toBe('platform-storage-secret');
      expect(report.api).not.toBe(200);
    }
    expect(reports.map((report) => report.where)).toEqual([
      `/app/${app.body.id}/user/top`,
      `/app/${app.body.id}/user/framed`,
    ]);
  }, 90_000);
});
