// An Agent as of any time, in a real Chromium against the real api: after its prompt, its Knowledge and its shared
// memories changed, its Space's owner opens its history at a moment before — the settings then with what changed since
// (the prompt as a word diff), the documents it reached then (one gone since, one added since), its Skills with the
// versions active then, and the shared memory's text then; "just before one of its changes" moves the moment there.
// A member who only uses the Agent reads its history without the shared memories. Screenshots at 1280 and 390 px;
// axe-core: 0 serious or critical violations in both themes.
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
  emulateTheme,
} from './browser.js';

const run = chromiumOrSkip('Agent history page (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser("an Agent's history in Chromium (e2e)", () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const stamp = Date.now();
  const editor = { email: `hed-${stamp}@example.com` };
  const member = { email: `hmo-${stamp}@example.com` };
  let agentId = '';
  let before = '';

  const pageOf = (email: string, width = 1280): Promise<Page> => pages.of(api.url, email, { width });
  const admin = () => client(api.url, ADMIN_KEY);
  const status = async (documentId: string) =>
    (await admin().get<{ status: string }>(`${CORE}/knowledge/${agentId}/documents/${documentId}`)).body
      .status;

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    const made = await spaceWithAgent(api.url, uniqueName('Harbour'), 'Pilot');
    agentId = made.agentId;
    const editorId = (await invitedPerson(api.url, editor.email, { name: 'Hal Editor' })).userId;
    const memberId = (await invitedPerson(api.url, member.email, { name: 'Hana Member' })).userId;
    await addMembers(api.url, made.spaceId, [
      [editorId, 'owner'],
      [memberId, 'member'],
    ]);
    expect(
      (await admin().put(`${CORE}/agents/${agentId}/prompt`, { systemPrompt: 'Speak of tides and fog.' }))
        .status,
    ).toBe(200);
    expect(
      (await admin().put(`${CORE}/agents/${agentId}`, { memoryEnabled: true, sharedMemoryEnabled: true }))
        .status,
    ).toBe(200);
    const tides = await admin().post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'tides.md',
      text: '# Tides\nHigh water at noon.',
    });
    await waitUntil(async () => (await status(tides.body.id)) === 'Ready', 20_000);
    const memory = await admin().post<{ id: string }>(`${CORE}/memory/${agentId}/memories`, {
      text: 'The pilot boat leaves from pier 4.',
      bucket: 'shared',
    });
    expect(memory.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 20));
    before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(
      (await admin().put(`${CORE}/agents/${agentId}/prompt`, { systemPrompt: 'Speak of tides and storms.' }))
        .status,
    ).toBe(200);
    expect(
      (await admin().delete(`${CORE}/knowledge/${agentId}/documents/${tides.body.id}`)).status,
    ).toBeLessThan(300);
    await admin().post(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'storms.md',
      text: '# Storms\nStay in.',
    });
    expect(
      (
        await admin().patch(`${CORE}/memory/${agentId}/memories/${memory.body.id}`, {
          text: 'The pilot boat leaves from pier 9.',
        })
      ).status,
    ).toBe(200);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it("the Space's owner reads the Agent as it was, with what changed since, and steps to just before a change", async () => {
    const page = await pageOf(editor.email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    await page.getByRole('link', { name: 'History: this Agent as of any time' }).click();
    await page.getByRole('heading', { name: 'Pilot as of any time' }).waitFor();
    await page.goto(`${api.url}/agent/${agentId}/history?asOf=${encodeURIComponent(before)}`);
    const settings = page.getByRole('region', { name: 'Settings then' });
    const prompt = settings.getByRole('listitem').filter({ hasText: 'System prompt' });
    expect(await prompt.locator('del').textContent()).toBe('removed: fog');
    expect(await prompt.locator('ins').textContent()).toBe('added: storms');
    await settings.getByText('Speak of tides and fog.', { exact: true }).waitFor();

    const knowledge = page.getByRole('region', { name: 'Knowledge then' });
    await knowledge.getByRole('listitem').filter({ hasText: 'tides.md' }).getByText('gone since').waitFor();
    await knowledge.getByText('Added since: storms.md').waitFor();
    const skills = page.getByRole('region', { name: 'Skills' });
    await skills.getByRole('listitem').filter({ hasText: 'draft-email' }).getByText('version 1').waitFor();
    const memories = page.getByRole('region', { name: 'Shared memories then' });
    await memories.getByText('The pilot boat leaves from pier 4.').waitFor();
    await screenshot(page, 'history-editor-1280');
    expect(await seriousViolations(page)).toEqual([]);

    // Just before the first prompt change: the prompt was the Agent's first (empty) one.
    await page.getByText('Just before one of its changes').click();
    const changes = page.getByRole('button', { name: /^Before .*: changed the Agent's prompt$/ });
    await changes.last().click();
    await page.waitForURL(/asOf=/);
    await settings
      .getByRole('listitem')
      .filter({ hasText: 'System prompt' })
      .locator('ins')
      .first()
      .waitFor();
    await waitUntil(
      async () => !(await settings.getByText('Speak of tides and fog.', { exact: true }).count()),
    );
    await emulateTheme(page, 'dark');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a member reads the history on a phone, without the shared memories', async () => {
    const page = await pageOf(member.email, 390);
    await page.goto(`${api.url}/agent/${agentId}/history?asOf=${encodeURIComponent(before)}`);
    await page.getByRole('region', { name: 'Knowledge then' }).getByText('tides.md').waitFor();
    expect(await page.getByRole('region', { name: 'Shared memories then' }).count()).toBe(0);
    await screenshot(page, 'history-member-390');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
