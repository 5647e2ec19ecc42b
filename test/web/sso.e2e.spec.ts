// Single sign-on in the browser (issue 23 §1): a real OpenID provider (oidc-provider) runs in this process on
// 127.0.0.1, configured in the api through AUTH_PROVIDERS_FILE (as test/oidc.e2e.spec.ts does); its login completes
// programmatically for the account the test names (the provider's page is not the subject). An invited person opens
// the sign-in page in Chromium, presses "Sign in with Corp SSO", goes through the provider and lands in the app
// signed in (the navigation, their email, their personal Agent). axe-core checks the sign-in page with the provider's
// button: 0 serious or critical violations. Screenshots in test/web/artifacts.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import type { Browser } from 'playwright-core';
import { ADMIN_KEY, client, CORE, startTestApi, tempDataDir, type TestApi } from '../support/api.js';
import { builtOrFail, chromiumOrSkip, launch, screenshot, seriousViolations } from './browser.js';

const SSO_SECRET = 'sso-client-secret-canary-browser-5c2e';

const run = chromiumOrSkip('SSO sign-in (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('single sign-on in Chromium (e2e)', () => {
  let api: TestApi;
  let providerServer: Server;
  let browser: Browser;
  const email = `sso-${Date.now()}@example.com`;
  const account = { sub: 'sso-person-1', email, email_verified: true, name: 'Sso Person' };

  beforeAll(async () => {
    builtOrFail();
    let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
    providerServer = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
    const providersFile = join(tempDataDir(), 'providers.yaml');
    writeFileSync(
      providersFile,
      [
        'providers:',
        '  - id: corp',
        '    name: Corp SSO',
        '    kind: sso',
        `    issuer: ${issuer}`,
        '    clientId: platform-sso',
        '    clientSecretEnv: CORP_SSO_SECRET',
      ].join('\n'),
    );
    api = await startTestApi({ AUTH_PROVIDERS_FILE: providersFile, CORP_SSO_SECRET: SSO_SECRET });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: 'platform-sso',
          client_secret: SSO_SECRET,
          redirect_uris: [`${api.url}${CORE}/auth/oidc/corp/callback`],
        },
      ],
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      cookies: { keys: ['test-cookie-key-browser-0123456789'] },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        Grant: 600,
        IdToken: 600,
        Interaction: 600,
        Session: 600,
      },
      findAccount: (_ctx, sub) =>
        sub === account.sub ? { accountId: sub, claims: () => ({ ...account }) } : undefined,
      // Consent is given: the test is about the relying party.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    const callbackHandler = provider.callback();
    handle = (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        // The provider's login form, filled in: the named account signs in.
        void provider
          .interactionFinished(
            req,
            res,
            { login: { accountId: account.sub } },
            { mergeWithLastSubmission: false },
          )
          .catch((error: unknown) => {
            res.statusCode = 500;
            res.end(String(error));
          });
        return;
      }
      void callbackHandler(req, res);
    };
    const invited = await client(api.url, ADMIN_KEY).post(`${CORE}/invitations`, { email, role: 'member' });
    expect(invited.status).toBe(201);
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    providerServer?.closeAllConnections();
    providerServer?.close();
  });

  it('an invited person signs in through the SSO button and lands in the app signed in', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${api.url}/`);
    const button = page.getByRole('link', { name: 'Sign in with Corp SSO' });
    await button.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in-sso');
    await button.click();
    // Through the provider and back: the app, signed in.
    await page.getByRole('navigation').waitFor();
    expect(new URL(page.url()).origin).toBe(api.url);
    await page.getByText(email).waitFor();
    const me = (await page.evaluate(
      "fetch('/api/v1/core/users/me').then(async (r) => ({ status: r.status, body: await r.json() }))",
    )) as { status: number; body: { email: string } };
    expect(me).toEqual({ status: 200, body: expect.objectContaining({ email }) });
    const session = (await context.cookies(api.url)).find((cookie) => cookie.name === 'ap_session');
    expect(session?.httpOnly).toBe(true);
    await screenshot(page, 'signed-in-through-sso');
    await context.close();
  }, 90_000);
});
