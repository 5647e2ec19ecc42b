// In Chromium: an App cannot sign a person in as someone else through the proxy (issue 42, item 2). The App, reached
// on the platform's origin, answers with the attacker's real session secret under spellings of the platform's
// cookie a browser accepts (`ap_session =…` with a space, which Chromium trims, on the API's path so it would be sent
// first), and the sign-in cookie `ap_oidc`. Afterwards the victim's page still has exactly its own session: the
// cookie jar holds one `ap_session`, the victim's, and the API answers as the victim; the App's own cookie is kept,
// scoped to `/app/{id}/`. Skipped, saying why, where Chromium is not installed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from '../support/api.js';
import { builtOrFail, chromiumOrSkip, invitedPerson, launch, PASSWORD, signIn } from './browser.js';

const run = chromiumOrSkip('App cookies (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser("an App's cookies in Chromium (e2e)", () => {
  let api: TestApi;
  let appServer: Server;
  let browser: Browser;
  /** The Set-Cookie lines the App answers with (the attacker's session secret in them once known). */
  let planted: string[] = [];

  beforeAll(async () => {
    builtOrFail();
    api = await startTestApi();
    appServer = createServer((request, response) => {
      if (request.url === '/meta') {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'cookie-jar', name: 'Cookie jar' }));
        return;
      }
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': planted })
        .end('<!doctype html><html lang="en"><title>Cookie jar</title><main><h1>Cookies</h1></main></html>');
    });
    await new Promise<void>((done) => appServer.listen(0, '127.0.0.1', done));
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    appServer?.closeAllConnections();
    appServer?.close();
  });

  it("a victim who opens an App keeps their own session: the App's `ap_session =…` and `ap_oidc` never land", async () => {
    const admin = client(api.url, ADMIN_KEY);
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Cookie jar',
      source: { type: 'url', url: `http://127.0.0.1:${(appServer.address() as AddressInfo).port}` },
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

    const opened = await page.goto(`${api.url}/app/${app.body.id}/page`);
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
    const theme = (await context.cookies(`${api.url}/app/${app.body.id}/page`)).find(
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
