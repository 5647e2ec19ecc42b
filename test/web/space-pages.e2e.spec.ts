// The Space pages and the usage page in a real Chromium against the real api: members and roles (an owner who is no
// admin finds a person by name or e-mail and adds them, changes the role, removes them, and sees the API's refusal as
// a clear message; an admin does the same; a member sees no change controls, no directory, and leaves; every member
// sees the others by name); the prompt library (an
// editor creates, edits, searches and deletes; a member only reads; in the chat, the keyboard opens the library and
// inserts a prompt into the message box); the usage page (the weekly limit, spent, overage and the window's reset
// time, in German, formatted in the browser's time zone). axe-core: 0 serious or critical violations on each page.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  addMembers,
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  signIn,
  spaceWithAgent,
  startApiWithFakeChat,
} from './browser.js';

const run = chromiumOrSkip('Space pages (browser)');
const describeBrowser = run ? describe : describe.skip;

interface Member {
  readonly userId: string;
  readonly role: string;
}

describeBrowser('members, prompt library and usage pages in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let spaceId: string;
  let spaceName: string;
  let agentId: string;
  const stamp = Date.now();
  const people = {
    owner: { email: `olga-${stamp}@example.com`, name: 'Olga Owner', id: '' },
    editor: { email: `ed-${stamp}@example.com`, name: 'Ed Editor', id: '' },
    member: { email: `mia-${stamp}@example.com`, name: 'Mia Member', id: '' },
    newcomer: { email: `nia-${stamp}@example.com`, name: 'Nia Newcomer', id: '' },
    admin: { email: `ada-${stamp}@example.com`, name: 'Ada Admin', id: '' },
  };
  const admin = () => client(api.url, ADMIN_KEY);
  const members = async () =>
    (await admin().get<{ data: Member[] }>(`${CORE}/spaces/${spaceId}/members?limit=200`)).body.data;
  const roleOf = async (userId: string) => (await members()).find((m) => m.userId === userId)?.role ?? null;

  /** A fresh browser context signed in as the person (English, Berlin time unless told). */
  async function pageOf(
    email: string,
    options: { locale?: string; timezoneId?: string } = {},
  ): Promise<Page> {
    const context = await browser.newContext({
      locale: options.locale ?? 'en-US',
      timezoneId: options.timezoneId ?? 'Europe/Berlin',
    });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, api.url, email);
    return page;
  }

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    spaceName = uniqueName('Research');
    ({ spaceId, agentId } = await spaceWithAgent(api.url, spaceName, uniqueName('Writer')));
    for (const [key, person] of Object.entries(people))
      person.id = (
        await invitedPerson(api.url, person.email, {
          name: person.name,
          role: key === 'admin' ? 'admin' : 'member',
        })
      ).userId;
    await addMembers(api.url, spaceId, [
      [people.owner.id, 'owner'],
      [people.editor.id, 'editor'],
      [people.member.id, 'member'],
    ]);
    // The owner finds the newcomer, with whom they share no Space yet: the admin opened the people directory.
    expect((await admin().put(`${CORE}/settings/people-directory`, { open: true })).status).toBe(200);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
    await upstream?.close();
  });

  it('members page: an owner who is not admin finds a person by name, adds them, changes the role, removes them; refusals are clear', async () => {
    const page = await pageOf(people.owner.email);
    // The navigation lists the personal Space first, and offers no members page for it (it is never shared).
    await page.getByRole('link', { name: `Members: ${spaceName}` }).waitFor();
    const spaceNames = await page.locator('nav section.space h3').allInnerTexts();
    expect(spaceNames[0]).toBe('Personal');
    expect(await page.getByRole('link', { name: 'Members: Personal' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Prompt library: Personal' }).count()).toBe(1);
    // Reached from the navigation, under the Space.
    await page.getByRole('link', { name: `Members: ${spaceName}` }).click();
    await page.getByRole('heading', { name: `Members: ${spaceName}` }).waitFor();
    const row = (userId: string) => page.locator(`tr[data-user="${userId}"]`);
    await row(people.member.id).waitFor();
    expect(await row(people.owner.id).innerText()).toContain('Olga Owner (You)');
    // Nobody changes their own role: no role control on one's own row, only Leave (another owner exists).
    expect(await row(people.owner.id).locator('select').count()).toBe(0);
    await row(people.owner.id).getByRole('button', { name: 'Leave this Space' }).waitFor();
    await screenshot(page, 'members-owner');
    expect(await seriousViolations(page)).toEqual([]);

    // Members are shown by name.
    await row(people.member.id).filter({ hasText: 'Mia Member' }).waitFor();
    await row(people.editor.id).filter({ hasText: 'Ed Editor' }).waitFor();

    // A non-admin owner finds the person by part of their name (GET …/member-candidates) and picks them.
    const form = page.locator('form.add-member');
    const picker = form.getByLabel('User');
    const find = form.getByLabel('Find a person (name or e-mail)');
    await find.fill('newcom');
    await picker.locator(`option[value="${people.newcomer.id}"]`).waitFor({ state: 'attached' });
    expect(await picker.locator('option').allInnerTexts()).toEqual([
      'Choose a user…',
      `Nia Newcomer <${people.newcomer.email}>`,
    ]);
    // Members are not offered again.
    await find.fill(`mia-${stamp}`);
    await form.getByText('Nobody found who is not a member yet.').waitFor();
    await find.fill('newcomer');
    await picker.locator(`option[value="${people.newcomer.id}"]`).waitFor({ state: 'attached' });
    expect(await seriousViolations(page)).toEqual([]);
    await picker.selectOption(people.newcomer.id);
    await form.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('status').filter({ hasText: 'Member added.' }).waitFor();
    await row(people.newcomer.id).filter({ hasText: 'Nia Newcomer' }).waitFor();
    expect(await roleOf(people.newcomer.id)).toBe('member');

    // Change the role.
    await row(people.newcomer.id).getByRole('combobox').selectOption('editor');
    await page.getByRole('status').filter({ hasText: 'Role changed.' }).waitFor();
    await waitUntil(async () => (await roleOf(people.newcomer.id)) === 'editor', 10_000);

    // The API's refusal, in words: someone else adds the picked person meanwhile, with another role.
    await find.fill('Ada Adm');
    await picker.locator(`option[value="${people.admin.id}"]`).waitFor({ state: 'attached' });
    await picker.selectOption(people.admin.id);
    const meanwhile = await admin().post(`${CORE}/spaces/${spaceId}/members`, {
      userId: people.admin.id,
      role: 'editor',
    });
    expect(meanwhile.status).toBe(201);
    await form.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'This person is already a member: change their role instead.' })
      .waitFor();
    expect(await roleOf(people.admin.id)).toBe('editor');
    await screenshot(page, 'members-refused');
    expect((await admin().delete(`${CORE}/spaces/${spaceId}/members/${people.admin.id}`)).status).toBe(204);

    // Remove.
    await page.getByRole('button', { name: 'Remove Nia Newcomer' }).click();
    await page.getByRole('status').filter({ hasText: 'Member removed.' }).waitFor();
    await row(people.newcomer.id).waitFor({ state: 'detached' });
    expect(await roleOf(people.newcomer.id)).toBeNull();
  });

  it('members page: an admin finds the person by e-mail the same way', async () => {
    const page = await pageOf(people.admin.email);
    await page.goto(`${api.url}/space/${spaceId}/members`);
    const picker = page.locator('form.add-member').getByLabel('User');
    await picker.waitFor();
    // Members are named; people already in the Space are not offered again.
    await page.locator(`tr[data-user="${people.member.id}"]`, { hasText: 'Mia Member' }).waitFor();
    await page.getByLabel('Find a person (name or e-mail)').fill(`-${stamp}@example`);
    await picker.locator(`option[value="${people.newcomer.id}"]`).waitFor({ state: 'attached' });
    const offered = await picker.locator('option').allInnerTexts();
    expect(offered.some((o) => o.includes('Nia Newcomer'))).toBe(true);
    expect(offered.some((o) => o.includes('Mia Member'))).toBe(false);
    await picker.selectOption(people.newcomer.id);
    await page.locator('form.add-member').getByLabel('Role').selectOption('editor');
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.locator(`tr[data-user="${people.newcomer.id}"]`, { hasText: 'Nia Newcomer' }).waitFor();
    expect(await roleOf(people.newcomer.id)).toBe('editor');
    await screenshot(page, 'members-admin');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('members page: a member sees no change controls, and leaves', async () => {
    const page = await pageOf(people.member.email);
    await page.goto(`${api.url}/space/${spaceId}/members`);
    await page
      .locator(`tr[data-user="${people.owner.id}"]`)
      .waitFor()
      .catch(async (e: unknown) => {
        await screenshot(page, 'members-member-failed');
        throw e;
      });
    expect(await page.locator('table.members select').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
    expect(await page.getByLabel('Find a person (name or e-mail)').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    // Every member sees the others by name.
    await page.locator(`tr[data-user="${people.owner.id}"]`, { hasText: 'Olga Owner' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Leave this Space' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `You left ${spaceName}.` })
      .waitFor();
    expect(await roleOf(people.member.id)).toBeNull();
    // Back for the tests below.
    expect(
      (await admin().post(`${CORE}/spaces/${spaceId}/members`, { userId: people.member.id, role: 'member' }))
        .status,
    ).toBe(201);
  });

  it('prompt library: an editor creates, edits, searches and deletes; a member only reads', async () => {
    const page = await pageOf(people.editor.email);
    await page.getByRole('link', { name: `Prompt library: ${spaceName}` }).click();
    await page.getByRole('heading', { name: `Prompt library: ${spaceName}` }).waitFor();
    const create = async (title: string, text: string, tags: string) => {
      await page.getByRole('button', { name: 'New prompt' }).click();
      await page.getByLabel('Title').fill(title);
      await page.getByLabel('Prompt text').fill(text);
      await page.getByLabel('Tags (comma-separated)').fill(tags);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.prompt-list h2', { hasText: title }).waitFor();
    };
    await create('Summarize', 'Summarize the text below in three bullet points.', 'writing, short');
    await create('Translate', 'Translate the text below into German.', 'language');
    expect(await seriousViolations(page)).toEqual([]);
    // Edit: a new version.
    await page.getByRole('button', { name: 'Edit Summarize' }).click();
    await page.getByLabel('Title').fill('Summarize briefly');
    await page.getByRole('button', { name: 'Save' }).click();
    const edited = page.locator('.prompt-list li', { hasText: 'Summarize briefly' });
    await edited.getByText('Version 2').waitFor();
    // Search narrows the list (title, tags, text).
    await page.getByLabel('Search prompts').fill('german');
    await page.locator('.prompt-list h2', { hasText: 'Summarize briefly' }).waitFor({ state: 'detached' });
    expect(await page.locator('.prompt-list h2').allInnerTexts()).toEqual(['Translate']);
    await page.getByLabel('Search prompts').fill('');
    await screenshot(page, 'prompts-editor');
    // Delete.
    await page.getByRole('button', { name: 'Delete Translate' }).click();
    await page.locator('.prompt-list h2', { hasText: 'Translate' }).waitFor({ state: 'detached' });
    const stored = await admin().get<{ data: { title: string; version: number }[] }>(
      `${CORE}/spaces/${spaceId}/prompts?limit=50`,
    );
    expect(stored.body.data.map((p) => [p.title, p.version])).toEqual([['Summarize briefly', 2]]);

    // A member reads the library but is offered no change.
    const reader = await pageOf(people.member.email);
    await reader.goto(`${api.url}/space/${spaceId}/prompts`);
    await reader.locator('.prompt-list h2', { hasText: 'Summarize briefly' }).waitFor();
    expect(await reader.getByRole('button', { name: 'New prompt' }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: /^(Edit|Delete) / }).count()).toBe(0);
    expect(await seriousViolations(reader)).toEqual([]);
  });

  it('chat: the keyboard opens the prompt library and inserts the chosen prompt into the message box', async () => {
    const page = await pageOf(people.member.email);
    await page.goto(`${api.url}/space/${spaceId}/agent/${agentId}`);
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('Here is my text.');
    await page.getByRole('button', { name: 'Prompts' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Prompt library' });
    await dialog.waitFor();
    // The dialog takes the focus (its search field), and the keyboard picks the prompt.
    await page.keyboard.type('bullet');
    await dialog.getByRole('button', { name: 'Insert “Summarize briefly”' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').innerText()).toBe('Insert “Summarize briefly”');
    await screenshot(page, 'chat-prompt-picker');
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    expect(await box.inputValue()).toBe(
      'Here is my text.\n\nSummarize the text below in three bullet points.',
    );
    // Focus is back in the message box; Escape closes the library without inserting anything.
    await page.locator('textarea:focus').waitFor();
    expect(await page.locator('textarea:focus').count()).toBe(1);
    await page.getByRole('button', { name: 'Prompts' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await box.inputValue()).toBe(
      'Here is my text.\n\nSummarize the text below in three bullet points.',
    );
    expect(upstream.requests.length).toBe(0);
  });

  it('usage page: the weekly limit, spent, overage and the reset time, in German and the local time zone', async () => {
    const limit = await admin().put(`${CORE}/cost-control/users/${people.member.id}`, {
      costUsd: 5,
      overage: 'block',
    });
    expect(limit.status).toBeLessThan(300);
    const status = await client(api.url, ADMIN_KEY).get<{ resetsAt: string }>(
      `${CORE}/cost-control/users/${people.member.id}`,
    );
    const page = await pageOf(people.member.email, { timezoneId: 'America/New_York' });
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('link', { name: 'Nutzung' }).click();
    await page.getByRole('heading', { name: 'Diese Woche' }).waitFor();
    const week = page.locator('section.week');
    expect(await week.locator('dd.limit').innerText()).toMatch(/^5,00\s\$$/);
    expect(await week.locator('dd.spent').innerText()).toContain('0 Tokens');
    expect(await week.innerText()).toContain('Wochenlimit');
    expect(await week.innerText()).toContain('Überschreitung');
    expect(await week.innerText()).toContain('Am Limit werden Anfragen abgelehnt');
    const expected = new Intl.DateTimeFormat('de', {
      dateStyle: 'full',
      timeStyle: 'short',
      timeZone: 'America/New_York',
    }).format(new Date(status.body.resetsAt));
    expect(await week.locator('time').innerText()).toBe(`Wird zurückgesetzt am ${expected}`);
    expect(await week.locator('time').getAttribute('datetime')).toBe(status.body.resetsAt);
    await screenshot(page, 'usage-de');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Sprache').selectOption('en');
    await page.getByRole('heading', { name: 'This week' }).waitFor();
    expect(await week.locator('time').innerText()).toContain('Resets at');
  });
});
