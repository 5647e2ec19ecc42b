// The people pages in a real Chromium against a fresh instance without ADMIN_API_KEY, with no terminal after the
// start: the setup link from the server's log creates the admin, signed in; the profile renames them, says why a
// password change or a link to a provider failed, turns the page German at once and signs out another of their
// sessions; the admins' page invites a person who accepts and signs in, deactivates them after a confirmation and
// reactivates them, issues an API key whose secret is shown once and revokes it after a confirmation, changes who may
// create Spaces and lists the configured provider; Developer Settings revoke one's own key after a confirmation. The
// sign-in page has the theme toggle. Screenshots at 390 and 1280 px; axe-core: 0 serious or critical violations on
// each page (the sign-in page in both themes).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CORE, startTestApi, tempDataDir, type TestApi } from '../support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  launch,
  PASSWORD,
  screenshot,
  seriousViolations,
  signIn,
} from './browser.js';

const run = chromiumOrSkip('people pages (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('first run, profile and admin pages in Chromium (e2e)', () => {
  let api: TestApi;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const stamp = Date.now();
  const ownerEmail = `owner-${stamp}@example.com`;
  let owner: Page;

  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({
      locale: 'en-US',
      viewport: { width, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  /** The page's own call to the public API with its session (what a script with the cookie could do). */
  const apiOf = (page: Page, path: string) =>
    page.evaluate(async (url) => {
      const response = await fetch(url, { credentials: 'same-origin' });
      return { status: response.status, body: (await response.json()) as unknown };
    }, `${CORE}/${path}`);

  /** Screenshots at both widths, and axe's serious findings (none expected). */
  async function checkLayouts(page: Page, name: string) {
    expect(await seriousViolations(page)).toEqual([]);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `${name}-${width}`);
    }
  }

  beforeAll(async () => {
    builtOrFail();
    // A provider that is configured but does not answer: listed everywhere, and linking to it fails visibly.
    const providersFile = join(tempDataDir(), 'providers.yaml');
    writeFileSync(
      providersFile,
      [
        'providers:',
        '  - id: corp',
        '    name: Corp SSO',
        '    kind: sso',
        '    issuer: http://127.0.0.1:9',
        '    clientId: platform',
        '    clientSecretEnv: CORP_SSO_SECRET',
      ].join('\n'),
    );
    api = await startTestApi({
      ADMIN_API_KEY: '',
      ADMIN_EMAIL: ownerEmail,
      AUTH_PROVIDERS_FILE: providersFile,
      CORP_SSO_SECRET: 'corp-secret-not-used',
    });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
  });

  it('the setup link from the log creates the admin, who lands signed in', async () => {
    const link = /first run: open (\S+)/.exec(api.logs())?.[1];
    expect(link).toMatch(/\/invitations\/accept#token=/);
    owner = await newPage();
    await owner.goto(link!.replace(api.config.people.publicUrl, api.url));
    await owner.getByLabel('Name').fill('Olga Owner');
    await owner.getByLabel('New password').fill(PASSWORD);
    await owner.getByRole('link', { name: 'Sign in with Corp SSO' }).waitFor();
    await owner.getByRole('button', { name: 'Dark theme' }).waitFor();
    await checkLayouts(owner, 'people-setup');
    await owner.getByRole('button', { name: 'Join' }).click();
    await owner.getByRole('navigation').waitFor();
    await owner.getByRole('link', { name: 'Administration' }).waitFor();
    expect((await apiOf(owner, 'users/me')).body).toMatchObject({ email: ownerEmail, role: 'admin' });
  });

  it('the profile renames, explains refusals, turns German at once and signs out another session', async () => {
    const laptop = await newPage();
    await signIn(laptop, api.url, ownerEmail);
    await owner.getByRole('link', { name: 'Profile' }).click();
    await owner.getByRole('heading', { name: 'Profile' }).waitFor();
    await owner.getByLabel('Name').fill('Olga O.');
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.getByText('Your profile is saved.').waitFor();
    expect((await apiOf(owner, 'users/me')).body).toMatchObject({ name: 'Olga O.' });
    await owner.getByLabel('Current password').fill('not my password at all');
    await owner.getByLabel('New password').fill(`${PASSWORD}, renewed`);
    await owner.getByRole('button', { name: 'Change password' }).click();
    await owner.getByRole('alert').filter({ hasText: 'The current password is not right.' }).waitFor();
    await owner.getByRole('button', { name: 'Link Corp SSO' }).click();
    await owner.getByRole('alert').filter({ hasText: 'The sign-in provider did not answer.' }).waitFor();

    await owner.getByRole('main').getByLabel('Language').selectOption('de');
    await owner.getByRole('heading', { name: 'Profil' }).waitFor();
    // What was said before the switch is said again in German: no English on a German page.
    await owner.getByRole('alert').filter({ hasText: 'Das aktuelle Passwort stimmt nicht.' }).waitFor();
    await owner.getByRole('heading', { name: 'Offene Sitzungen' }).waitFor();
    await owner.getByRole('button', { name: 'Überall abmelden' }).waitFor();
    const rows = owner.locator('table.sessions tbody tr');
    await rows.nth(1).waitFor();
    await expect(rows.count()).resolves.toBe(2);
    await checkLayouts(owner, 'people-profile-de');
    await rows.filter({ hasNotText: 'Diese Sitzung' }).getByRole('button').click();
    await owner.getByText('Diese Sitzung ist abgemeldet.').waitFor();
    await rows.nth(1).waitFor({ state: 'detached' });
    await expect(rows.count()).resolves.toBe(1);
    await laptop.reload();
    await laptop.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await apiOf(owner, 'users/me')).body).toMatchObject({ language: 'de' });

    await owner.getByRole('main').getByLabel('Sprache').selectOption('en');
    await owner.getByRole('heading', { name: 'Profile' }).waitFor();
  });

  it('the admin invites a person who joins, issues a key shown once, and sets who may create Spaces', async () => {
    const personEmail = `pia-${stamp}@example.com`;
    await owner.getByRole('link', { name: 'Administration' }).click();
    await owner.getByRole('heading', { name: 'Administration' }).waitFor();
    await owner.locator('input[name="invite-email"]').fill(personEmail);
    await owner.getByRole('button', { name: 'Invite', exact: true }).click();
    const invitationLink = await owner.locator('.secret code').textContent();
    expect(invitationLink).toMatch(/#token=inv_/);
    await owner.getByText(`${personEmail} · Member · pending`).waitFor();

    const person = await newPage(390);
    await person.goto(invitationLink!.replace(api.config.people.publicUrl, api.url));
    await person.getByLabel('Name').fill('Pia Person');
    await person.getByLabel('New password').fill(PASSWORD);
    await person.getByRole('button', { name: 'Join' }).click();
    await person.getByRole('navigation').waitFor();
    expect((await apiOf(person, 'users/me')).body).toMatchObject({ email: personEmail, role: 'member' });
    await expect(person.getByRole('link', { name: 'Administration' }).count()).resolves.toBe(0);

    await owner.reload();
    await owner.getByRole('cell', { name: 'Pia Person' }).waitFor();
    await expect(owner.getByLabel(`Role ${ownerEmail}`).isDisabled()).resolves.toBe(true);
    // Deactivating asks first: Escape keeps the person active, the dialog's Deactivate deactivates.
    const statusOfPia = async () => {
      const users = (await apiOf(owner, 'users?limit=200')).body as {
        data: { email: string; status: string }[];
      };
      return users.data.find((user) => user.email === personEmail)?.status;
    };
    await owner.getByRole('button', { name: `Deactivate ${personEmail}` }).click();
    const question = owner.getByRole('dialog', { name: `Deactivate ${personEmail}?` });
    await question.getByText('They can no longer sign in until an admin reactivates them.').waitFor();
    await checkLayouts(owner, 'people-deactivate-confirm');
    await owner.keyboard.press('Escape');
    await question.waitFor({ state: 'hidden' });
    await expect(statusOfPia()).resolves.toBe('active');
    await owner.getByRole('button', { name: `Deactivate ${personEmail}` }).click();
    await question.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await owner.getByRole('button', { name: `Reactivate ${personEmail}` }).waitFor();
    await expect(statusOfPia()).resolves.toBe('deactivated');
    await person.reload();
    await person.getByRole('button', { name: 'Sign in' }).waitFor();
    await owner.getByRole('button', { name: `Reactivate ${personEmail}` }).click();
    await owner.getByRole('button', { name: `Deactivate ${personEmail}` }).waitFor();
    await owner.getByText('Corp SSO · Single sign-on').waitFor();
    await owner.getByLabel('Key name').fill('Reporting');
    await owner.getByLabel("Owner's email (empty: you)").fill(personEmail);
    await owner.getByLabel('Token limit per window (empty: none)').fill('50000');
    // Pia may not use Olga's personal Agent: the key is refused, and the page says why.
    const agents = owner.getByLabel('Agents (none chosen: all Agents)');
    await agents.selectOption({ label: "Olga Owner's assistant" });
    await owner.getByRole('button', { name: 'Issue key' }).click();
    await owner
      .getByRole('alert')
      .filter({ hasText: 'The owner may not use one of the chosen Agents' })
      .waitFor();
    await agents.selectOption([]);
    await owner.getByRole('button', { name: 'Issue key' }).click();
    await owner.getByText('Copy this key now: it is shown only once.').waitFor();
    const secret = (await owner.locator('.secret code').textContent())!;
    await owner.getByRole('button', { name: 'Copy' }).click();
    await owner.getByText('Copied.').waitFor();
    await expect(owner.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);
    const asKey = await fetch(`${api.url}${CORE}/users/me`, { headers: { 'x-api-key': secret } });
    expect(((await asKey.json()) as { email: string }).email).toBe(personEmail);
    await owner.getByText(/Reporting.*Owner: pia-.*50000 Tokens \/ Week/).waitFor();

    // Revoking asks first: Cancel keeps the key working, the dialog's Revoke ends it.
    const keyWorks = async () =>
      (await fetch(`${api.url}${CORE}/users/me`, { headers: { 'x-api-key': secret } })).status;
    await owner.getByRole('button', { name: 'Revoke Reporting' }).click();
    const revoking = owner.getByRole('dialog', { name: 'Revoke the key “Reporting”?' });
    await revoking.getByText('Whatever uses this key can no longer call the API.').waitFor();
    await revoking.getByRole('button', { name: 'Cancel' }).click();
    await revoking.waitFor({ state: 'hidden' });
    await expect(keyWorks()).resolves.toBe(200);
    await owner.getByRole('button', { name: 'Revoke Reporting' }).click();
    await revoking.getByRole('button', { name: 'Revoke', exact: true }).click();
    await owner.getByText(/Reporting.*revoked/).waitFor();
    await expect(keyWorks()).resolves.toBe(401);

    await owner.getByLabel('Admins only').check();
    await owner.getByText('Saved.').waitFor();
    expect((await apiOf(owner, 'settings/space-creation')).body).toMatchObject({ creatorRoles: ['admin'] });
    await checkLayouts(owner, 'people-admin');

    await owner.reload();
    await owner.getByRole('heading', { name: 'Administration' }).waitFor();
    await owner.getByText('Reporting').first().waitFor();
    await expect(owner.getByText(secret).count()).resolves.toBe(0);
    await expect(owner.getByLabel('Admins only').isChecked()).resolves.toBe(true);
  });

  it('Developer Settings revoke one of their own keys only after the confirmation', async () => {
    await owner.getByRole('link', { name: 'Developer Settings' }).click();
    await owner.getByRole('heading', { name: 'Developer Settings' }).waitFor();
    await owner.getByLabel('Key name').fill('Laptop');
    await owner.getByRole('button', { name: 'Create key' }).click();
    const secret = (await owner.locator('.secret code').textContent())!;
    const status = async () =>
      (await fetch(`${api.url}${CORE}/users/me`, { headers: { 'x-api-key': secret } })).status;
    await expect(status()).resolves.toBe(200);
    const revoke = owner.getByRole('button', { name: 'Revoke Laptop' });
    await revoke.click();
    const question = owner.getByRole('dialog', { name: 'Revoke the key “Laptop”?' });
    await question.waitFor();
    await checkLayouts(owner, 'people-developer-revoke');
    await owner.keyboard.press('Escape');
    await question.waitFor({ state: 'hidden' });
    await expect(status()).resolves.toBe(200);
    await revoke.click();
    await question.getByRole('button', { name: 'Revoke', exact: true }).click();
    await revoke.waitFor({ state: 'detached' });
    await expect(status()).resolves.toBe(401);
  });

  it('the sign-in page has the theme toggle beside the language switch; the choice is kept', async () => {
    const visitor = await newPage();
    await visitor.goto(`${api.url}/sign-in`);
    const toggle = visitor.getByRole('button', { name: 'Dark theme' });
    await visitor.getByRole('button', { name: 'Sign in' }).waitFor();
    await visitor.getByLabel('Language').waitFor();
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await checkLayouts(visitor, 'people-sign-in-light');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await visitor.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await checkLayouts(visitor, 'people-sign-in-dark');
    await visitor.reload();
    await visitor.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await visitor.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await visitor.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    // The language chosen signed out outlasts a reload as well.
    await visitor.getByLabel('Language').selectOption('de');
    await visitor.getByRole('button', { name: 'Anmelden' }).waitFor();
    await visitor.reload();
    await visitor.getByRole('button', { name: 'Anmelden' }).waitFor();
    expect(await visitor.evaluate('document.documentElement.lang')).toBe('de');
  });

  it('a language switch whose save has not reached the profile is kept by a reload and saved then', async () => {
    const page = await newPage();
    await signIn(page, api.url, ownerEmail);
    // The save never reaches the api (the page is left before it answers, or the network drops it).
    await page.route('**/api/v1/core/users/me', (route) =>
      route.request().method() === 'PATCH' ? route.abort('failed') : route.fallback(),
    );
    await page.getByRole('navigation').getByLabel('Language').selectOption('de');
    await page.getByRole('navigation').getByLabel('Sprache').waitFor();
    expect((await apiOf(page, 'users/me')).body).toMatchObject({ language: 'en' });
    await page.unroute('**/api/v1/core/users/me');
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/users/me') && response.request().method() === 'PATCH',
    );
    await page.reload();
    // German again (not the profile's English), and the choice is sent again with the profile read.
    await page.getByRole('navigation').getByLabel('Sprache').waitFor();
    await checkLayouts(page, 'people-language-kept-de');
    expect((await saved).status()).toBe(200);
    expect((await apiOf(page, 'users/me')).body).toMatchObject({ language: 'de' });
    const english = page.waitForResponse(
      (response) => response.url().endsWith('/users/me') && response.request().method() === 'PATCH',
    );
    await page.getByRole('navigation').getByLabel('Sprache').selectOption('en');
    await page.getByRole('navigation').getByLabel('Language').waitFor();
    expect((await english).status()).toBe(200);
    expect((await apiOf(page, 'users/me')).body).toMatchObject({ language: 'en' });
  });
});
