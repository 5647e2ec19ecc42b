// Knowledge at its three levels in a real Chromium against the real api: a Space owner (no admin) drops several files
// at once on an Agent's page (the file input and a real drop), watches them become Ready or Failed (with the reason)
// without a reload, sees a file over 25 MiB refused on its own row, reads a document's log, text and chunks, creates,
// renames, recolours and deletes a tag, tags and deletes a selection in bulk, builds the section-summary index;
// uploads a Space document on the Space's page and finds it on the Agent's page at the Space level; an admin adds a
// Global document on /knowledge; a member who only uses the Agent reads everything and changes nothing, in English
// and in German. Screenshots at 390 and 1280 px; axe in light and dark.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  addMembers,
  ARTIFACTS,
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  SignedInPages,
  spaceWithAgent,
  startApiWithFakeChat,
  emulateTheme,
} from './browser.js';

const run = chromiumOrSkip('Knowledge (browser)');
const describeBrowser = run ? describe : describe.skip;

const VOLCANOES = [
  '# Volcanoes of Italy',
  '',
  '## Etna',
  '',
  'Mount Etna is an active stratovolcano on the east coast of Sicily.',
  '',
  '## Vesuvius',
  '',
  'Mount Vesuvius stands near the Bay of Naples.',
].join('\n');
const PNG = [...Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')];
const DROP_LABEL = 'Drop files here, or choose several at once';

/** What the tests read in the page (their TypeScript has no DOM). */
interface PageGlobals {
  getComputedStyle(element: unknown): { readonly color: string };
}

interface Doc {
  readonly name: string;
  readonly status: string;
  readonly tags: string[];
}

describeBrowser('Knowledge at three levels in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  let spaceId: string;
  let agentId: string;
  const stamp = Date.now();
  const people = {
    owner: { email: `kora-${stamp}@example.com`, id: '' },
    member: { email: `kim-${stamp}@example.com`, id: '' },
    admin: { email: `kai-${stamp}@example.com`, id: '' },
  };
  const admin = () => client(api.url, ADMIN_KEY);
  const documents = async (scope = 'agent') =>
    (await admin().get<{ data: Doc[] }>(`${CORE}/knowledge/${agentId}/documents?scope=${scope}&limit=200`))
      .body.data;
  const tags = async () =>
    (
      await admin().get<{ data: { id: string; name: string; color: string }[] }>(
        `${CORE}/knowledge/${agentId}/tags`,
      )
    ).body.data;

  const pageOf = (email: string): Promise<Page> => pages.of(api.url, email);

  /**
   * Screenshots at 1280 and 390 px (of the Knowledge section alone on an Agent's long settings page), and axe in the
   * light and the dark theme (and a screenshot in the dark one).
   */
  async function shotsAndAxe(page: Page, name: string, section?: Locator): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      if (section) {
        mkdirSync(ARTIFACTS, { recursive: true });
        await section.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`) });
      } else await screenshot(page, `${name}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const colorScheme of ['light', 'dark'] as const) {
      await emulateTheme(page, colorScheme);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await (section ?? page).screenshot({ path: join(ARTIFACTS, `${name}-1280-dark.png`) });
    await emulateTheme(page, 'light');
  }

  const row = (page: Page, name: string) => page.locator('.kn-row', { hasText: name });
  const statusOf = (page: Page, name: string) => row(page, name).locator('.kn-status');

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    ({ spaceId, agentId } = await spaceWithAgent(api.url, uniqueName('Geology'), uniqueName('Guide')));
    for (const [key, person] of Object.entries(people))
      person.id = (
        await invitedPerson(api.url, person.email, { role: key === 'admin' ? 'admin' : 'member' })
      ).userId;
    await addMembers(api.url, spaceId, [
      [people.owner.id, 'owner'],
      [people.member.id, 'member'],
    ]);
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it('a Space owner drops several files at once: each uploads on its own row and turns Ready or Failed without a reload', async () => {
    const page = await pageOf(people.owner.email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await page.getByRole('heading', { name: 'Knowledge', exact: true }).waitFor();
    // A mark on the window: a reload would lose it.
    await page.evaluate('window.knowledgeMark = "kept"');

    // Several files through the input (keyboard-reachable); the empty one is refused on its own row.
    await page.getByLabel(DROP_LABEL).setInputFiles([
      { name: 'volcanoes.md', mimeType: 'text/markdown', buffer: Buffer.from(VOLCANOES) },
      { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\n\nBasalt cools fast.') },
      { name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) },
    ]);
    await page
      .locator('.kn-upload-row.failed', { hasText: 'empty.txt' })
      .getByText('The file is empty.')
      .waitFor();

    // A real drop: a DataTransfer with two files, one of them a picture (not a type Knowledge reads).
    // (A string: the test's TypeScript knows no DOM; the page builds the DataTransfer.)
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['# Dropped\\n\\nLava flows downhill.'], 'dropped.md', { type: 'text/markdown' }));
      transfer.items.add(new File([new Uint8Array(${JSON.stringify(PNG)})], 'picture.png', { type: 'image/png' }));
      return transfer;
    })()`);
    await page.locator('.kn-drop').dispatchEvent('drop', { dataTransfer });

    for (const name of ['volcanoes.md', 'notes.md', 'dropped.md'])
      await statusOf(page, name).filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await statusOf(page, 'picture.png').filter({ hasText: 'Failed' }).waitFor({ timeout: 60_000 });
    await row(page, 'picture.png').getByText('This file type is not supported.').waitFor();
    expect(await page.evaluate('window.knowledgeMark')).toBe('kept');
    expect((await documents()).map((d) => d.name).sort()).toEqual([
      'dropped.md',
      'notes.md',
      'picture.png',
      'volcanoes.md',
    ]);
    await shotsAndAxe(page, 'knowledge-agent-owner', page.locator('section.kn'));

    // Details: the log, the extracted text, the chunks with their section path; Escape closes.
    await page.getByRole('button', { name: 'Details of volcanoes.md' }).click();
    const dialog = page.getByRole('dialog', { name: 'volcanoes.md' });
    await dialog.getByText('Processing started').waitFor();
    // The tabs follow the arrow keys.
    await dialog.getByRole('tab', { name: 'Ingestion log' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await dialog.getByRole('tab', { name: 'Extracted text' }).getAttribute('aria-selected')).toBe(
      'true',
    );
    await dialog.getByText('Mount Etna is an active stratovolcano', { exact: false }).waitFor();
    await dialog.getByRole('tab', { name: 'Chunks' }).click();
    await dialog.getByText('Volcanoes of Italy › Etna').waitFor();
    await dialog.screenshot({ path: join(ARTIFACTS, 'knowledge-chunks-1280.png') });
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  }, 120_000);

  it('a file over 25 MiB is refused on its own row while the one beside it goes on', async () => {
    const page = await pageOf(people.owner.email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await page.getByLabel(DROP_LABEL).setInputFiles(
      [
        { name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(26 * 1024 * 1024, 'a') },
        { name: 'small.md', mimeType: 'text/markdown', buffer: Buffer.from('# Small\n\nPumice floats.') },
        // 26 MiB into the browser takes a while on a loaded machine.
      ],
      { timeout: 90_000 },
    );
    await page
      .locator('.kn-upload-row.failed', { hasText: 'huge.txt' })
      .getByText('The file is larger than 25 MiB, the most a document may be.')
      .waitFor({ timeout: 60_000 });
    await statusOf(page, 'small.md').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    expect((await documents()).map((d) => d.name)).not.toContain('huge.txt');
    // Deleted again: the next tests count the documents the drop left.
    await page.getByLabel('Select small.md').check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the selected documents (1)?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await row(page, 'small.md').waitFor({ state: 'detached' });
  }, 180_000);

  it('tags: create, rename, recolour, attach to a selection in bulk, detach, delete with a confirmation; bulk delete', async () => {
    const page = await pageOf(people.owner.email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await statusOf(page, 'volcanoes.md').filter({ hasText: 'Ready' }).waitFor();

    await page.getByLabel('New tag', { exact: true }).fill('geology');
    await page.getByLabel('Colour of the new tag').fill('#ffeb3b');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await page.getByLabel('Name of “geology”').fill('rocks');
    await page.getByLabel('Colour of “geology”').fill('#1b5e20');
    await page.getByRole('button', { name: 'Save tag' }).click();
    await page.getByLabel('Name of “rocks”').waitFor();
    expect((await tags()).map(({ name, color }) => ({ name, color }))).toEqual([
      { name: 'rocks', color: '#1b5e20' },
    ]);

    // Bulk: the tag on two selected documents.
    await page.getByLabel('Select volcanoes.md').check();
    await page.getByLabel('Select dropped.md').check();
    await page.getByText('2 selected').waitFor();
    await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'rocks' });
    await page.getByRole('button', { name: 'Add tag', exact: true }).click();
    await page.getByText('Tag added to 2 of 2 selected.').waitFor();
    await row(page, 'volcanoes.md').locator('.kn-chip', { hasText: 'rocks' }).waitFor();
    await row(page, 'dropped.md').locator('.kn-chip', { hasText: 'rocks' }).waitFor();
    // The chip's text stays readable on a dark tag colour.
    const ink = row(page, 'dropped.md').locator('.kn-chip');
    const colour = await ink.evaluate(
      (chip) => (globalThis as unknown as PageGlobals).getComputedStyle(chip).color,
    );
    expect(colour).toBe('rgb(255, 255, 255)');
    // One detached on its row, one attached on another.
    await page.getByRole('button', { name: 'Remove tag rocks from dropped.md' }).click();
    await row(page, 'dropped.md').locator('.kn-chip').waitFor({ state: 'detached' });
    await page.getByLabel('Add a tag to notes.md').selectOption({ label: 'rocks' });
    await row(page, 'notes.md').locator('.kn-chip', { hasText: 'rocks' }).waitFor();
    const tagged = (await documents()).filter((d) => d.tags.length > 0).map((d) => d.name);
    expect(tagged.sort()).toEqual(['notes.md', 'volcanoes.md']);
    await shotsAndAxe(page, 'knowledge-tags', page.locator('section.kn'));

    // Deleting the tag asks first, saying it leaves every document.
    await page.getByRole('button', { name: 'Delete tag “rocks”' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the tag “rocks”?' });
    await confirm.getByText('It is removed from every document that carries it.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.kn-chip').first().waitFor({ state: 'detached' });
    expect(await tags()).toEqual([]);
    await waitUntil(async () => (await documents()).every((d) => d.tags.length === 0), 15_000);

    // The selection (all of them) as one zip.
    await page.getByLabel('Select all').check();
    await page.getByText('4 selected').waitFor();
    const [zip] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as zip' }).click(),
    ]);
    expect(zip.suggestedFilename()).toBe('documents.zip');
    await page.getByLabel('Select all').uncheck();
    await page.getByText('Select documents to download, tag, process or delete them together.').waitFor();

    // Bulk delete of a selection, after a confirmation; one of them was deleted elsewhere meanwhile, and says so.
    await page.getByLabel('Select picture.png').check();
    await page.getByLabel('Select notes.md').check();
    const notes = (
      await admin().get<{ data: { id: string; name: string }[] }>(
        `${CORE}/knowledge/${agentId}/documents?limit=200`,
      )
    ).body.data.find((d) => d.name === 'notes.md')!;
    expect((await admin().delete(`${CORE}/knowledge/${agentId}/documents/${notes.id}`)).status).toBe(204);
    await page.getByRole('button', { name: 'Delete selected' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the selected documents (2)?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('Deleted: 1 of 2 selected.').waitFor();
    await page
      .getByRole('list', { name: 'Documents that failed' })
      .getByText('notes.md: This does not exist (any more), or you may not see it.')
      .waitFor();
    await row(page, 'picture.png').waitFor({ state: 'detached' });
    await row(page, 'notes.md').waitFor({ state: 'detached' });
    expect((await documents()).map((d) => d.name).sort()).toEqual(['dropped.md', 'volcanoes.md']);
  }, 90_000);

  it('the section-summary index builds with its progress and ends Completed', async () => {
    const page = await pageOf(people.owner.email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    const index = page.locator('.kn-index');
    await index.getByText('Not built yet.').waitFor();
    await index.getByRole('button', { name: 'Build', exact: true }).click();
    await index.getByText('Completed').waitFor({ timeout: 60_000 });
    await index.getByText(/Summaries: \d+, levels: \d+, documents: 2;/).waitFor();
  }, 90_000);

  it("a Space document uploaded on the Space's page is listed on the Agent's page at the Space level", async () => {
    const page = await pageOf(people.owner.email);
    await page.goto(`${api.url}/space/${spaceId}/settings`);
    const shared = page.locator('section', { has: page.getByRole('heading', { name: 'Shared Knowledge' }) });
    await shared.getByLabel(DROP_LABEL).setInputFiles({
      name: 'handbook.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Handbook\n\nEvery Agent of the Space reads this.'),
    });
    await statusOf(page, 'handbook.md').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await shotsAndAxe(page, 'knowledge-space', page.locator('section.kn'));
    expect((await documents('space')).map((d) => d.name)).toEqual(['handbook.md']);

    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await statusOf(page, 'volcanoes.md').waitFor();
    expect(await row(page, 'handbook.md').count()).toBe(0);
    await page.getByLabel('Its Space (shared)').check();
    await statusOf(page, 'handbook.md').filter({ hasText: 'Ready' }).waitFor();
    // Global: the owner is no admin, so the level is read-only with the reason.
    await page.getByLabel('Global', { exact: true }).check();
    await page.getByText('Only admins add, change or delete Global documents.').waitFor();
    expect(await page.getByLabel(DROP_LABEL).count()).toBe(0);
  }, 90_000);

  it('an admin adds a Global document on /knowledge', async () => {
    const page = await pageOf(people.admin.email);
    await page.getByRole('link', { name: 'Global Knowledge' }).click();
    await page.getByRole('heading', { name: 'Global Knowledge' }).waitFor();
    await page.getByLabel(DROP_LABEL).setInputFiles({
      name: 'policy.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Policy\n\nAnswers cite their sources.'),
    });
    await statusOf(page, 'policy.md').filter({ hasText: 'Ready' }).waitFor({ timeout: 60_000 });
    await shotsAndAxe(page, 'knowledge-global');
    expect((await documents('global')).map((d) => d.name)).toContain('policy.md');
  }, 90_000);

  it('a member who only uses the Agent reads every level and changes nothing', async () => {
    const page = await pageOf(people.member.email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await statusOf(page, 'volcanoes.md').filter({ hasText: 'Ready' }).waitFor();
    await page
      .getByText('You can read these documents but not add, change or delete them', { exact: false })
      .waitFor();
    expect(await page.getByLabel(DROP_LABEL).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete selected' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create tag' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Build', exact: true }).count()).toBe(0);
    await page.getByText('Building the index needs the editor or owner role', { exact: false }).waitFor();
    // Reading stays open: the chunks of a document.
    await page.getByRole('button', { name: 'Details of volcanoes.md' }).click();
    await page.getByRole('dialog').getByRole('tab', { name: 'Chunks' }).click();
    await page.getByRole('dialog').getByText('Volcanoes of Italy › Etna').waitFor();
    await page.keyboard.press('Escape');
    await shotsAndAxe(page, 'knowledge-agent-member', page.locator('section.kn'));

    await page.goto(`${api.url}/space/${spaceId}/settings`);
    await statusOf(page, 'handbook.md').waitFor();
    await page.getByText("You can read the Space's documents but not add", { exact: false }).waitFor();
    expect(await page.getByLabel(DROP_LABEL).count()).toBe(0);
    // Global Knowledge is no page of theirs.
    expect(await page.getByRole('link', { name: 'Global Knowledge' }).count()).toBe(0);

    // In German, every word of it is German: statuses, the reason, the selection's hint.
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { name: 'Geteiltes Wissen' }).waitFor();
    await statusOf(page, 'handbook.md').filter({ hasText: 'Bereit' }).waitFor();
    await page.getByText('Du kannst die Dokumente des Space lesen', { exact: false }).waitFor();
    await page.getByText('Wähle Dokumente aus, um sie gemeinsam herunterzuladen.').waitFor();
    await page.getByRole('button', { name: 'Details zu handbook.md' }).waitFor();
    await screenshot(page, 'knowledge-space-member-de');
  }, 90_000);
});
