// The memories page in a real Chromium against the real api: a person changes what an Agent remembers about them,
// rolls a memory back to an earlier version, deletes one, and erases everything after a confirmation (Escape keeps
// it); the Agent's editor sees its shared memories with who contributed each and how often answers used them, and
// clears them. Screenshots at 1280 and 390 px; axe-core: 0 serious or critical violations.
import type { Browser, Page } from 'playwright-core';
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
  SignedInPages,
  spaceWithAgent,
  startApiWithFakeChat,
} from './browser.js';

const run = chromiumOrSkip('Memories page (browser)');
const describeBrowser = run ? describe : describe.skip;

interface MemoryBody {
  readonly id: string;
  readonly text: string;
  readonly bucket: 'personal' | 'shared';
}

describeBrowser('the memories page in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  let spaceId: string;
  let agentId: string;
  let agentName: string;
  const stamp = Date.now();
  const editor = { email: `eve-${stamp}@example.com`, id: '' };
  const person = { email: `pia-${stamp}@example.com`, id: '' };

  const pageOf = (email: string, width = 1280): Promise<Page> => pages.of(api.url, email, { width });

  /** What the person signed in on `page` has the Agent remember (through the API, with their session). */
  const remember = (page: Page, text: string, bucket: 'personal' | 'shared' = 'personal') =>
    page.evaluate(
      async ({ path, body }) =>
        (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status,
      { path: `${CORE}/memory/${agentId}/memories`, body: JSON.stringify({ text, bucket }) },
    );

  const memoriesOf = (page: Page) =>
    page.evaluate(
      async (path) => ((await (await fetch(path)).json()) as { data: MemoryBody[] }).data,
      `${CORE}/memory/${agentId}/memories?limit=200`,
    );

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    agentName = uniqueName('Mentor');
    ({ spaceId, agentId } = await spaceWithAgent(api.url, uniqueName('Studio'), agentName));
    const admin = client(api.url, ADMIN_KEY);
    const enabled = await admin.put(`${CORE}/agents/${agentId}`, {
      memoryEnabled: true,
      sharedMemoryEnabled: true,
    });
    expect(enabled.status).toBe(200);
    editor.id = (await invitedPerson(api.url, editor.email, { name: 'Eve Editor', role: 'member' })).userId;
    person.id = (await invitedPerson(api.url, person.email, { name: 'Pia Person', role: 'member' })).userId;
    await addMembers(api.url, spaceId, [
      [editor.id, 'editor'],
      [person.id, 'member'],
    ]);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it('a person changes, rolls back and deletes what the Agent remembers, and erases everything after confirming', async () => {
    const page = await pageOf(person.email);
    expect(await remember(page, 'Prefers answers in bullet points')).toBe(201);
    expect(await remember(page, 'Works on the harbour project')).toBe(201);
    await page.goto(`${api.url}/memories`);
    const mine = page.getByRole('region', { name: agentName });
    await mine.getByText('Prefers answers in bullet points', { exact: true }).waitFor();

    // Changed in place: a second version.
    await mine.getByRole('button', { name: 'Edit: Prefers answers in bullet points' }).click();
    await mine.getByLabel('What the Agent remembers').fill('Prefers short answers in bullet points');
    await mine.getByRole('button', { name: 'Save' }).click();
    await mine.getByText('Prefers short answers in bullet points', { exact: true }).waitFor();

    // Back to the first version.
    await mine.getByRole('button', { name: 'Versions: Prefers short answers in bullet points' }).click();
    await mine.getByRole('list', { name: 'Versions of “Prefers short answers in bullet points”' }).waitFor();
    await screenshot(page, 'memories-versions-1280');
    expect(await seriousViolations(page)).toEqual([]);
    await mine.getByRole('button', { name: 'Back to version 1' }).click();
    await waitUntil(async () =>
      (await memoriesOf(page)).some((m) => m.text === 'Prefers answers in bullet points'),
    );

    await mine.getByRole('button', { name: 'Delete: Works on the harbour project' }).click();
    await waitUntil(
      async () => !(await memoriesOf(page)).some((m) => m.text === 'Works on the harbour project'),
    );

    // Erasing everything asks first; Escape keeps the memories.
    await page.getByRole('button', { name: 'Erase all my memories' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase all my memories' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await memoriesOf(page)).length).toBe(1);
    await page.getByRole('button', { name: 'Erase all my memories' }).click();
    await dialog.getByRole('button', { name: 'Erase everything' }).click();
    await waitUntil(async () => (await memoriesOf(page)).length === 0);
    await mine.waitFor({ state: 'detached' });
  });

  it("the Agent's editor sees the shared memories with their contributor and use, and clears them", async () => {
    const page = await pageOf(editor.email, 390);
    expect(await remember(page, 'The studio closes on Fridays', 'shared')).toBe(201);
    await page.goto(`${api.url}/memories`);
    const shared = page.getByRole('region', { name: agentName });
    await shared.getByText('The studio closes on Fridays', { exact: true }).waitFor();
    await shared.getByText(/Added by Eve Editor\./).waitFor();
    await shared.getByText(/Not used in an answer yet\./).waitFor();
    await screenshot(page, 'memories-shared-390');
    expect(await seriousViolations(page)).toEqual([]);

    // An answer recalls it: the memory says so, and the answer is one click away.
    const asked = await page.evaluate(
      async ({ path, body }) =>
        (await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json(),
      {
        path: `${CORE}/llm/${agentId}/conversation`,
        body: JSON.stringify({ message: 'When does the studio close? Fridays?' }),
      },
    );
    const conversationId = (asked as { conversationId: string }).conversationId;
    await page.reload();
    await shared.getByText(/Used in 1 answers/).waitFor();
    await shared.getByText('Answers that used “The studio closes on Fridays”').click();
    await shared.getByRole('link', { name: 'Open the conversation' }).click();
    await page.waitForURL(new RegExp(`/space/${spaceId}/agent/${agentId}\\?c=${conversationId}&m=[^&]+$`));
    await page.locator('p.user-text', { hasText: 'When does the studio close? Fridays?' }).waitFor();
    // The link names the answer: it is the one marked.
    await page.locator('li.message.assistant[data-linked="true"]').waitFor();
    await page.goto(`${api.url}/memories`);

    await shared.getByRole('button', { name: `Clear the shared memories of ${agentName}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clear' }).click();
    await waitUntil(async () => (await memoriesOf(page)).length === 0);
  });
});
