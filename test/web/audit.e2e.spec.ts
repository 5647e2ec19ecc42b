// The Audit page in a real Chromium against the real api: a Space's owner opens their Space's audit trail from its
// page and reads who changed the Agent's prompt, before → after as a word diff; downloads the selection as an export
// and verifies its hash chain in the browser (a changed line is found and named); sees a cascade's steps with what
// caused them; is told why the whole trail is not theirs. An admin reads the whole trail with people's names and
// filters it by who. Screenshots at 1280 and 390 px; axe-core: 0 serious or critical violations in both themes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  ARTIFACTS,
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  SignedInPages,
  startApiWithFakeChat,
  emulateTheme,
} from './browser.js';

const run = chromiumOrSkip('Audit page (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('the audit page in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const stamp = Date.now();
  const owner = { email: `olga-${stamp}@example.com`, name: 'Olga Owner' };
  const adminPerson = { email: `ada-${stamp}@example.com`, name: 'Ada Admin' };
  let spaceId = '';
  let agentId = '';

  const pageOf = (email: string, width = 1280): Promise<Page> => pages.of(api.url, email, { width });

  /** A call of the person signed in on `page`, with their session. */
  const call = (page: Page, method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ({ method, path, body }) => {
        const response = await fetch(path, {
          method,
          headers: body ? { 'content-type': 'application/json' } : {},
          body,
        });
        return (response.status === 204 ? {} : await response.json()) as { id: string };
      },
      { method, path: `${CORE}/${path}`, body: body === undefined ? undefined : JSON.stringify(body) },
    );

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    await invitedPerson(api.url, owner.email, { name: owner.name });
    await invitedPerson(api.url, adminPerson.email, { name: adminPerson.name, role: 'admin' });
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it("an owner reads their Space's trail with the prompt's change as a diff, exports it and verifies it", async () => {
    const page = await pageOf(owner.email);
    spaceId = (await call(page, 'POST', 'spaces', { name: uniqueName('Audited') })).id;
    agentId = (
      await call(page, 'POST', 'agents', {
        spaceId,
        name: 'Scribe',
        systemPrompt: 'Answer in short sentences.',
      })
    ).id;
    await call(page, 'PUT', `agents/${agentId}/prompt`, { systemPrompt: 'Answer in long sentences.' });

    await page.goto(`${api.url}/space/${spaceId}/settings`);
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get('resourceId')).toBe(spaceId);
    const entries = page.getByRole('list', { name: 'Audit entries, newest first' });
    const promptChange = entries.getByRole('listitem').filter({ hasText: "changed the Agent's prompt" });
    await promptChange.waitFor();
    await promptChange.getByRole('button', { name: owner.name }).waitFor();
    expect(await promptChange.locator('del').textContent()).toBe('removed: short');
    expect(await promptChange.locator('ins').textContent()).toBe('added: long');
    expect(await entries.getByRole('listitem').filter({ hasText: 'created the Space' }).count()).toBe(1);
    await screenshot(page, 'audit-owner-1280');
    expect(await seriousViolations(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download these entries as a verifiable export' }).click(),
    ]);
    const file = join(ARTIFACTS, 'audit-export.jsonl');
    await download.saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBe((await entries.locator(':scope > li').count()) + 1);
    await page.getByLabel('Export file').setInputFiles(file);
    await page
      .getByRole('status')
      .getByText(new RegExp(`^The chain is intact: ${lines.length - 1} entries, head hash [0-9a-f]{64}\\.$`))
      .waitFor();

    const tampered = join(ARTIFACTS, 'audit-export-tampered.jsonl');
    const at = lines.findIndex((line) => line.includes('Answer in long sentences.'));
    writeFileSync(
      tampered,
      lines.map((line, index) => (index === at ? line.replace('long', 'brief') : line)).join('\n'),
    );
    await page.getByLabel('Export file').setInputFiles(tampered);
    await page
      .getByRole('alert')
      .getByText(`The chain breaks at line ${at + 1}: its hash does not match its entry (it was changed).`)
      .waitFor();
  });

  it("shows a cascade's cause, explains why the whole trail is an admin's, and fits a phone", async () => {
    const page = await pageOf(owner.email, 390);
    await call(page, 'DELETE', `spaces/${spaceId}`);
    await page.goto(`${api.url}/audit?resourceId=${spaceId}`);
    const agentGone = page.getByRole('listitem').filter({ hasText: 'deleted the Agent' });
    await agentGone.getByText('A step of a cascade another change started.').waitFor();
    await agentGone.getByRole('button', { name: 'Show the whole chain' }).click();
    await page.waitForURL(/correlationId=/);
    await page.getByRole('listitem').filter({ hasText: 'deleted the Space' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'deleted the Agent' }).waitFor();
    // The chain is the deletion's request and what it caused, nothing before it (the Space's whole trail, listed
    // until the chain's page has loaded, showed its creation).
    expect(new URL(page.url()).searchParams.get('resourceId')).toBe(spaceId);
    await page.getByRole('listitem').filter({ hasText: 'created the Space' }).waitFor({ state: 'detached' });
    await screenshot(page, 'audit-cascade-390');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page
      .getByRole('alert')
      .getByText(/^Only admins read the whole audit trail\./)
      .waitFor();
    expect(await page.locator('li.audit-entry').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit', exact: true }).count()).toBe(0);
  });

  it('an admin reads the whole trail with names, filters it by who, in the dark theme too', async () => {
    const page = await pageOf(adminPerson.email);
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    const entries = page.getByRole('list', { name: 'Audit entries, newest first' });
    await entries.getByRole('button', { name: owner.name }).first().waitFor();
    await entries.getByRole('button', { name: owner.name }).first().click();
    await page.waitForURL(/actorId=/);
    await entries.getByRole('listitem').first().waitFor();
    const actors = await entries.locator('li.audit-entry > p > button').first().allInnerTexts();
    expect(actors.every((name) => name === owner.name)).toBe(true);
    expect(await entries.getByRole('listitem').filter({ hasText: 'created the Space' }).count()).toBe(1);
    await emulateTheme(page, 'dark');
    await screenshot(page, 'audit-admin-dark-1280');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
