// The links of the platform's mails, followed in a real Chromium as the people who get them would: an invited person
// opens the invitation link from the mail outbox, chooses a name and a password and lands signed in in the app (in
// English and in German); the first admin (ADMIN_API_KEY's user, who has no password) gets a reset link, sets a
// password and signs in to the web app; a spent, forged or missing token is refused in the page's language. axe-core
// finds no serious or critical violation on either page. Screenshots in test/web/artifacts.
import type { Browser, Page } from 'playwright-core';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from '../support/api.js';
import { builtOrFail, chromiumOrSkip, launch, PASSWORD, screenshot, seriousViolations } from './browser.js';

const run = chromiumOrSkip('mail links (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('the links of the mails in Chromium (e2e)', () => {
  let api: TestApi;
  let browser: Browser;
  const admin = () => client(api.url, ADMIN_KEY);
  const stamp = Date.now();

  /** The link of the newest mail of `kind` to `to`, as an address of this api (the mail's host is PUBLIC_URL's). */
  const linkFromMail = async (to: string, kind: 'invitation' | 'password-reset'): Promise<string> => {
    const outbox = await admin().get<{ data: { to: string; kind: string; text: string }[] }>(
      `${CORE}/mail-outbox`,
    );
    const mail = outbox.body.data.find((m) => m.to === to && m.kind === kind);
    const link = /https?:\/\/\S+#token=\S+/.exec(mail?.text ?? '')?.[0];
    if (!link) throw new Error(`no ${kind} link mailed to ${to}`);
    const url = new URL(link);
    return `${api.url}${url.pathname}${url.hash}`;
  };

  const invite = async (email: string): Promise<string> => {
    expect((await admin().post(`${CORE}/invitations`, { email, role: 'member' })).status).toBe(201);
    return linkFromMail(email, 'invitation');
  };

  const pageIn = async (locale: 'en-US' | 'de-DE'): Promise<Page> => {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  };

  beforeAll(async () => {
    builtOrFail();
    api = await startTestApi();
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('an invited person opens the link from the mail, sets name and password, and lands signed in (English)', async () => {
    const email = `ann-${stamp}@example.com`;
    const page = await pageIn('en-US');
    await page.goto(await invite(email));
    await page.getByRole('heading', { name: 'Join Agent Platform' }).waitFor();
    await page.getByLabel('Name').fill('Ann Alder');
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await screenshot(page, 'invitation-en');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('navigation').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(page.url()).not.toContain('token');
    await page.getByText(email).waitFor();
    await screenshot(page, 'invitation-en-signed-in');
    const me = await page.evaluate(async () => (await fetch('/api/v1/core/users/me')).json());
    expect(me).toMatchObject({ email, name: 'Ann Alder', language: 'en' });
    await page.context().close();
  });

  it('in German: the page speaks German, a spent link says so, the fresh one signs the person in', async () => {
    const used = await invite(`used-${stamp}@example.com`);
    const token = decodeURIComponent(used.split('#token=')[1]!);
    const accepted = await client(api.url, null).post(`${CORE}/invitations/accept`, {
      token,
      name: 'Used',
      password: PASSWORD,
    });
    expect(accepted.status).toBe(201);
    const page = await pageIn('de-DE');
    await page.goto(used);
    await page.getByRole('heading', { name: 'Agent Platform beitreten' }).waitFor();
    await page.getByLabel('Name').fill('Zoe Zeder');
    await page.getByLabel('Neues Passwort', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Beitreten' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Diese Einladung wurde schon angenommen. Melde dich stattdessen an.' })
      .waitFor();
    await screenshot(page, 'invitation-de-used');
    // A forged token: the same page, refused in German.
    await page.goto(`${api.url}/invitations/accept#token=inv_forged.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    await page.getByLabel('Name').fill('Zoe Zeder');
    await page.getByLabel('Neues Passwort', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Beitreten' }).click();
    await page.getByRole('alert').filter({ hasText: 'Dieser Link ist ungültig.' }).waitFor();

    const email = `zoe-${stamp}@example.com`;
    await page.goto(await invite(email));
    await page.getByLabel('Name').fill('Zoe Zeder');
    await page.getByLabel('Neues Passwort', { exact: true }).fill(PASSWORD);
    await screenshot(page, 'invitation-de');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Beitreten' }).click();
    await page.getByRole('button', { name: 'Abmelden' }).waitFor();
    await page.getByText(email).waitFor();
    await screenshot(page, 'invitation-de-signed-in');
    const me = await page.evaluate(async () => (await fetch('/api/v1/core/users/me')).json());
    expect(me).toMatchObject({ email, language: 'de' });
    await page.context().close();
  });

  it('the first admin gets a reset link, sets a password in the browser and signs in to the web app (English)', async () => {
    const me = await admin().get<{ id: string; email: string }>(`${CORE}/users/me`);
    expect((await admin().post(`${CORE}/users/${me.body.id}/password-reset`)).status).toBe(201);
    const link = await linkFromMail(me.body.email, 'password-reset');
    const page = await pageIn('en-US');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await screenshot(page, 'password-reset-en');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is set.' }).waitFor();
    expect(page.url()).not.toContain('token');
    await screenshot(page, 'password-reset-en-done');
    await page.getByRole('button', { name: 'Go to sign-in' }).click();
    await page.getByLabel('Email').fill(me.body.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Administration' }).waitFor();
    await screenshot(page, 'first-admin-signed-in');
    // The link is spent.
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill(`${PASSWORD} again`);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').filter({ hasText: 'This link is not valid. Ask for a new one.' }).waitFor();
    await page.context().close();
  });

  it('in German: a person resets their password and signs in with it; a link without its token is refused', async () => {
    const email = `rei-${stamp}@example.com`;
    const invitation = await invite(email);
    const accepted = await client(api.url, null).post<{ id: string }>(`${CORE}/invitations/accept`, {
      token: decodeURIComponent(invitation.split('#token=')[1]!),
      name: 'Rei Roth',
      password: 'the password forgotten soon',
    });
    expect(accepted.status).toBe(201);
    expect((await admin().post(`${CORE}/users/${accepted.body.id}/password-reset`)).status).toBe(201);
    const page = await pageIn('de-DE');
    await page.goto(`${api.url}/password-reset`);
    await page.getByRole('alert').filter({ hasText: 'Dieser Link ist ungültig.' }).waitFor();
    await screenshot(page, 'password-reset-de-no-token');
    await page.goto(await linkFromMail(email, 'password-reset'));
    await page.getByRole('heading', { name: 'Neues Passwort festlegen' }).waitFor();
    await page.getByLabel('Neues Passwort', { exact: true }).fill(PASSWORD);
    await screenshot(page, 'password-reset-de');
    await page.getByRole('button', { name: 'Passwort festlegen' }).click();
    await page.getByRole('status').filter({ hasText: 'Dein Passwort ist gesetzt.' }).waitFor();
    await screenshot(page, 'password-reset-de-done');
    await page.getByRole('button', { name: 'Zur Anmeldung' }).click();
    await page.getByLabel('E-Mail').fill(email);
    await page.getByLabel('Passwort').fill(PASSWORD);
    await page.getByRole('button', { name: 'Anmelden' }).click();
    // Signed in, the app speaks the person's own language (English: accepted without one).
    await page.getByRole('navigation').waitFor();
    await page.getByText(email).waitFor();
    await page.context().close();
  });
});
