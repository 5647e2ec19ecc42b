// The chat's composer, each answer's actions, the conversation list and memory at its answer, in a real Chromium
// against the real api and a fake OpenAI-compatible upstream: Shift+Enter breaks lines and the box grows, Enter
// sends, Esc stops a slow stream (the upstream sees it cancelled), a dropped and a pasted file become chips that the
// sent question keeps after a reload, `/` opens the prompt library; an answer is copied as Markdown, shows its model
// and tokens on focus, is regenerated, and its question edited and resent, each a version kept beside the earlier
// ones and switched back to ("‹ 1 / 3 ›"); a conversation is pinned (listed under
// Pinned), renamed inline, found by its title and by its question's words, deleted after a question; an incognito
// one is marked and never listed; a deep link survives signing in; a saved memory's note and a team fact's proposal
// sit at their answer, after a reload too. Screenshots at 390 and 1280 px; axe in light and dark: 0 serious or critical.
import type { Page } from 'playwright-core';
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
  PASSWORD,
  SignedInPages,
  spaceWithAgent,
  startApiWithFakeChat,
  emulateTheme,
} from './browser.js';

/** What the page's scripts reach that Node's types do not name. */
interface BrowserGlobals {
  DataTransfer: new () => { items: { add(file: File): void } };
  ClipboardEvent: new (type: string, init: Record<string, unknown>) => Event;
  navigator: { clipboard: { readText(): Promise<string> } };
}

const run = chromiumOrSkip('chat composer (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('the chat: composer, answer actions, conversation list (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let pages: SignedInPages;
  let spaceId: string;
  let agentId: string;
  const email = `cora-${Date.now()}@example.com`;
  const chatPath = () => `/space/${spaceId}/agent/${agentId}`;

  /** The person's own reading of a route (their session, through the page). */
  const read = <T>(page: Page, path: string): Promise<T> =>
    page.evaluate(async (url) => (await fetch(url)).json() as Promise<T>, `${CORE}/llm/${agentId}${path}`);

  const answered = (page: Page) =>
    page.locator('li.message.assistant[data-streaming="false"] .actions').last().waitFor();

  async function axeInBothThemes(page: Page, name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await emulateTheme(page, scheme);
      expect({ name, scheme, violations: await seriousViolations(page) }).toEqual({
        name,
        scheme,
        violations: [],
      });
    }
    await emulateTheme(page, 'light');
  }

  async function atBothWidths(page: Page, name: string): Promise<void> {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await screenshot(page, `${name}-${width}`);
    }
  }

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    ({ spaceId, agentId } = await spaceWithAgent(api.url, uniqueName('Kitchen'), 'Cook'));
    const person = await invitedPerson(api.url, email, { name: 'Cora Cook' });
    await addMembers(api.url, spaceId, [[person.userId, 'editor']]);
    const prompt = await client(api.url, ADMIN_KEY).post(`${CORE}/spaces/${spaceId}/prompts`, {
      title: 'Summarize briefly',
      text: 'Summarize the text below in three bullet points.',
    });
    expect(prompt.status).toBe(201);
    const browser = await launch();
    pages = new SignedInPages(() => browser);
  }, 120_000);

  afterAll(async () => {
    await pages?.close(api, upstream);
  });

  it('composer: Shift+Enter lines, Enter sends, dropped and pasted files as chips kept after reload, Esc stops, / opens the prompts', async () => {
    upstream.reset();
    upstream.set({ reply: 'Cardamom, as your notes say.', chunkDelayMs: 0 });
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}${chatPath()}`);
    const box = page.getByLabel('Message', { exact: true });
    await box.click();
    const height = async () => (await box.boundingBox())!.height;
    const oneLine = await height();
    await page.keyboard.type('What is in my notes?');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('And in the table?');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('Thanks.');
    expect(await box.inputValue()).toBe('What is in my notes?\nAnd in the table?\n\nThanks.');
    expect(await height()).toBeGreaterThan(oneLine);

    // A file dropped on the composer, one pasted into the box, and one removed again.
    const files = (names: string[]) =>
      page.evaluateHandle(
        (list) => {
          const transfer = new (globalThis as unknown as BrowserGlobals).DataTransfer();
          for (const [name, text, type] of list) transfer.items.add(new File([text!], name!, { type }));
          return transfer;
        },
        names.map((name) => [
          name,
          name.endsWith('.csv') ? 'dish,spice\ncurry,cardamom' : 'The secret ingredient is cardamom.',
          name.endsWith('.csv') ? 'text/csv' : 'text/plain',
        ]),
      );
    await page.dispatchEvent('form.composer', 'drop', {
      dataTransfer: await files(['notes.txt', 'draft.txt']),
    });
    const pasted = await files(['table.csv']);
    await box.evaluate((element, clipboardData) => {
      const { ClipboardEvent } = globalThis as unknown as BrowserGlobals;
      element.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
    }, pasted);
    const chips = page.locator('form.composer .chip');
    await waitUntil(async () => (await chips.count()) === 3, 5_000);
    expect(await page.locator('form.composer .chip-name').allInnerTexts()).toEqual([
      'notes.txt',
      'draft.txt',
      'table.csv',
    ]);
    await page.getByRole('button', { name: 'Remove draft.txt' }).click();
    expect(await page.locator('form.composer .chip-name').allInnerTexts()).toEqual([
      'notes.txt',
      'table.csv',
    ]);
    expect(await box.inputValue()).toBe('What is in my notes?\nAnd in the table?\n\nThanks.');
    await screenshot(page, 'chat-compose-chips');

    await box.focus();
    await page.keyboard.press('Enter');
    await answered(page);
    expect(await page.locator('form.composer .chip').count()).toBe(0);
    expect(await box.inputValue()).toBe('');
    const question = page.locator('li.message.user').last();
    expect(await question.locator('.user-text').innerText()).toBe(
      'What is in my notes?\nAnd in the table?\n\nThanks.',
    );
    expect(await question.locator('.chip-name').allInnerTexts()).toEqual(['notes.txt', 'table.csv']);
    expect(upstream.requests.some((r) => r.rawBody.includes('The secret ingredient is cardamom.'))).toBe(
      true,
    );
    expect(upstream.requests.some((r) => r.rawBody.includes('curry'))).toBe(true);
    // After a reload the question still shows what it carried (the messages route lists its attachments).
    await page.waitForURL(/\?c=/);
    await page.reload();
    const reloaded = page.locator('li.message.user').last();
    await reloaded.locator('.chip').first().waitFor();
    expect(await reloaded.locator('.chip-name').allInnerTexts()).toEqual(['notes.txt', 'table.csv']);
    expect(await reloaded.locator('.chip-size').first().innerText()).toMatch(/\d+\s*byte/);
    await atBothWidths(page, 'chat-compose-attachments');
    await axeInBothThemes(page, 'attachments');

    // Esc stops an answer being written; the upstream sees the call cancelled.
    upstream.set({ reply: Array.from({ length: 300 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 100 });
    await box.fill('Tell me a long story.');
    await page.keyboard.press('Enter');
    await page
      .locator('li.message.assistant[data-streaming="true"] .markdown', { hasText: 'word2' })
      .waitFor();
    expect(upstream.aborted).toBe(0);
    await box.focus();
    await page.keyboard.press('Escape');
    await waitUntil(async () => upstream.aborted >= 1, 10_000);
    await page.getByText('This answer is incomplete.').first().waitFor();

    // `/` at the start of an empty box opens the prompt library; anywhere else it is a character.
    await box.fill('');
    await box.focus();
    await page.keyboard.press('/');
    const dialog = page.getByRole('dialog', { name: 'Prompt library' });
    await dialog.waitFor();
    expect(await box.inputValue()).toBe('');
    await dialog.getByRole('button', { name: 'Insert “Summarize briefly”' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await box.inputValue()).toBe('Summarize the text below in three bullet points.');
    await page.keyboard.press('End');
    await page.keyboard.type(' a/b');
    expect(await box.inputValue()).toBe('Summarize the text below in three bullet points. a/b');
    expect(await dialog.isVisible()).toBe(false);
  });

  it('answer actions: copy as Markdown, model and tokens on focus, regenerate, edit and resend', async () => {
    upstream.reset();
    upstream.set({ reply: () => `**Answer ${upstream.requests.length}**: use \`cumin\`.`, chunkDelayMs: 0 });
    const page = await pages.of(api.url, email, { clipboard: true });
    await page.goto(`${api.url}${chatPath()}`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('Which spice for lentils?');
    await page.keyboard.press('Enter');
    await answered(page);
    const answer = page.locator('li.message.assistant').last();
    const first = (await answer.locator('.markdown').innerText()).trim();
    expect(first).toMatch(/^Answer \d+: use cumin\.$/);

    await answer.getByRole('button', { name: 'Copy' }).click();
    await answer.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    const copied = await page.evaluate(() =>
      (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText(),
    );
    expect(copied).toMatch(/^\*\*Answer \d+\*\*: use `cumin`\.$/);

    // The model on the answer; focusing it tells the tokens the turn used (from its provenance).
    const model = answer.getByRole('button', { name: 'fake-chat' });
    await model.focus();
    const tip = page.getByRole('tooltip');
    await tip.filter({ hasText: /tokens in/ }).waitFor();
    expect(await tip.innerText()).toMatch(/^\d[\d,]* tokens in \(\d+ cached\), \d+ out$/);
    expect(await model.getAttribute('aria-describedby')).toBe(await tip.getAttribute('id'));
    await atBothWidths(page, 'chat-compose-usage');
    await axeInBothThemes(page, 'answer actions');

    await answer.getByRole('button', { name: 'Regenerate' }).click();
    await waitUntil(
      async () =>
        (await page.locator('li.message.assistant[data-streaming="false"] .markdown').count()) === 1 &&
        (await page.locator('li.message.assistant .markdown').innerText()) !== first,
      15_000,
    );
    await answered(page);
    // The first answer is kept: the turn has two versions now, the new one shown.
    const versions = page.getByRole('group', { name: 'Versions of this turn' });
    await versions.filter({ hasText: '2 / 2' }).waitFor();
    const regenerated = (await page.locator('li.message.assistant .markdown').innerText()).trim();

    await page.locator('li.message.user').getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Edit', { exact: true }).fill('Which spice for chickpeas?');
    await page.getByRole('button', { name: 'Save and rerun' }).click();
    await page.locator('li.message.user', { hasText: 'Which spice for chickpeas?' }).waitFor();
    await answered(page);
    await versions.filter({ hasText: '3 / 3' }).waitFor();
    const conversationId = new URL(page.url()).searchParams.get('c')!;
    type Thread = { data: { role: string; content: string; siblings: { ids: string[] } | null }[] };
    await waitUntil(async () => {
      const thread = await read<Thread>(page, `/conversation/${conversationId}/messages`);
      return (
        thread.data.length === 2 &&
        thread.data[0]!.content === 'Which spice for chickpeas?' &&
        thread.data[0]!.siblings?.ids.length === 3
      );
    }, 10_000);
    await atBothWidths(page, 'chat-compose-versions');
    await axeInBothThemes(page, 'turn versions');

    // Back to the first version, by keyboard: its question and its answer as they were, after a reload too.
    await versions.getByRole('button', { name: 'Previous version' }).focus();
    await page.keyboard.press('Enter');
    await versions.filter({ hasText: '2 / 3' }).waitFor();
    expect((await page.locator('li.message.assistant .markdown').innerText()).trim()).toBe(regenerated);
    await versions.getByRole('button', { name: 'Previous version' }).click();
    await versions.filter({ hasText: '1 / 3' }).waitFor();
    expect(await versions.getByRole('button', { name: 'Previous version' }).isDisabled()).toBe(true);
    await page.reload();
    await page.locator('li.message.user', { hasText: 'Which spice for lentils?' }).waitFor();
    await versions.filter({ hasText: '1 / 3' }).waitFor();
    expect((await page.locator('li.message.assistant .markdown').innerText()).trim()).toBe(first);
    const all = await read<Thread>(page, `/conversation/${conversationId}/messages?branches=all`);
    expect(all.data).toHaveLength(6);
  });

  it('conversation list: pin (under Pinned), rename inline, search, delete after a question; a deep link survives sign-in', async () => {
    upstream.reset();
    upstream.set({ reply: 'Noted.', chunkDelayMs: 0 });
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}${chatPath()}`);
    const box = page.getByLabel('Message', { exact: true });
    for (const question of ['Soup for a cold day?', 'Bread without yeast?']) {
      await page.getByRole('button', { name: 'New conversation' }).click();
      await box.fill(question);
      await page.keyboard.press('Enter');
      await answered(page);
    }
    const list = page.locator('section.conversations');
    const today = list.getByRole('region', { name: 'Today' });
    await today.getByRole('link', { name: 'Soup for a cold day?' }).waitFor();

    await list.getByRole('button', { name: 'Pin Soup for a cold day?' }).click();
    const pinned = list.getByRole('region', { name: 'Pinned' });
    await pinned.getByRole('link', { name: 'Soup for a cold day?' }).waitFor();
    expect(await today.getByRole('link', { name: 'Soup for a cold day?' }).count()).toBe(0);
    const listed = async () =>
      (
        await read<{ data: { title: string; pinned: boolean; id: string }[] }>(
          page,
          '/conversation?limit=200',
        )
      ).data;
    expect((await listed()).find((c) => c.title === 'Soup for a cold day?')?.pinned).toBe(true);

    await list.getByRole('button', { name: 'Rename Soup for a cold day?' }).click();
    const title = list.getByLabel('New title');
    expect(await title.inputValue()).toBe('Soup for a cold day?');
    await title.fill('Winter soups');
    await page.keyboard.press('Enter');
    await pinned.getByRole('link', { name: 'Winter soups' }).waitFor();
    expect((await listed()).map((c) => c.title)).toContain('Winter soups');
    // Esc leaves the title as it was.
    await list.getByRole('button', { name: 'Rename Winter soups' }).click();
    await list.getByLabel('New title').fill('Not this');
    await page.keyboard.press('Escape');
    await pinned.getByRole('link', { name: 'Winter soups' }).waitFor();

    await list.getByLabel('Search conversations').fill('winter');
    await list.getByRole('link', { name: 'Bread without yeast?' }).waitFor({ state: 'detached' });
    expect(await list.getByRole('link').allInnerTexts()).toEqual(['Winter soups']);
    // Its question, not its title, has these words: the server searches the person's messages.
    await list.getByLabel('Search conversations').fill('cold day');
    await list.getByRole('link', { name: 'Winter soups' }).waitFor();
    expect(await list.getByRole('link').allInnerTexts()).toEqual(['Winter soups']);
    await list.getByLabel('Search conversations').fill('nothing like this');
    await list.getByText('No conversation matches.').waitFor();
    await list.getByLabel('Search conversations').fill('winter');
    await list.getByRole('link', { name: 'Winter soups' }).waitFor();
    await atBothWidths(page, 'chat-compose-list');
    await axeInBothThemes(page, 'conversation list');
    await list.getByLabel('Search conversations').fill('');

    // A deep link opened before signing in opens the conversation after it.
    const soup = (await listed()).find((c) => c.title === 'Winter soups')!;
    const stranger = await pages.of(api.url, email);
    await stranger.getByRole('button', { name: 'Sign out' }).click();
    await stranger.getByRole('heading', { name: 'Sign in' }).waitFor();
    await stranger.goto(`${api.url}${chatPath()}?c=${soup.id}`);
    await stranger.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signInHere(stranger);
    await stranger.locator('li.message.user', { hasText: 'Soup for a cold day?' }).waitFor();
    expect(new URL(stranger.url()).searchParams.get('c')).toBe(soup.id);

    // An incognito conversation says so while it is open, and is never listed.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByLabel('Incognito').check();
    const note = page.getByText('Incognito: nothing of this conversation is kept.');
    await note.waitFor();
    await box.fill('Pancakes for one?');
    await page.keyboard.press('Enter');
    await answered(page);
    await page.waitForURL(/\?c=/);
    expect(await note.isVisible()).toBe(true);
    expect((await listed()).map((c) => c.title)).not.toContain('Pancakes for one?');
    expect(await list.getByRole('link', { name: 'Pancakes for one?' }).count()).toBe(0);
    await screenshot(page, 'chat-compose-incognito');
    await list.getByRole('link', { name: 'Winter soups' }).click();
    await note.waitFor({ state: 'detached' });

    // Delete asks first: Cancel keeps it, Delete erases it.
    await list.getByRole('button', { name: 'Delete Bread without yeast?' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete “Bread without yeast?”?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await listed()).map((c) => c.title)).toContain('Bread without yeast?');
    await list.getByRole('button', { name: 'Delete Bread without yeast?' }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await list.getByRole('link', { name: 'Bread without yeast?' }).waitFor({ state: 'detached' });
    expect((await listed()).map((c) => c.title)).not.toContain('Bread without yeast?');
  });

  it('memory at its answer: a personal fact\'s "Saved to memory" note, a team fact\'s proposal with its choices', async () => {
    const agent = await client(api.url, ADMIN_KEY).post<{ id: string }>(`${CORE}/agents`, {
      spaceId,
      name: uniqueName('Team'),
      sharedMemoryEnabled: true,
      knowledgeEnabled: false,
    });
    expect(agent.status).toBe(201);
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/space/${spaceId}/agent/${agent.body.id}`);
    await page.getByLabel('Message', { exact: true }).fill('Our team cooks on Fridays. I prefer green tea.');
    await page.keyboard.press('Enter');
    const answer = page.locator('li.message.assistant');
    await answer.getByText('Saved to memory: The user prefers green tea.').waitFor();
    const proposal = answer.getByRole('group', { name: 'Remember this for the team?' });
    await proposal.getByText('Our team cooks on Fridays.').waitFor();
    expect(await page.getByRole('group', { name: 'Remember this for the team?' }).count()).toBe(1);
    await atBothWidths(page, 'chat-compose-proposal');
    await axeInBothThemes(page, 'proposal');
    // After a reload the note and the waiting proposal are still at their answer (once: not again below the chat).
    await page.waitForURL(/\?c=/);
    await page.reload();
    await answer.getByText('Saved to memory: The user prefers green tea.').waitFor();
    await proposal.getByText('Our team cooks on Fridays.').waitFor();
    expect(await page.getByRole('group', { name: 'Remember this for the team?' }).count()).toBe(1);
    await proposal.getByRole('button', { name: 'Save for me only' }).click();
    await proposal.waitFor({ state: 'detached' });
    await page.reload();
    await answer.getByText('Saved to memory: Our team cooks on Fridays.').waitFor();
    expect(await page.getByRole('group', { name: 'Remember this for the team?' }).count()).toBe(0);
  });

  /** The sign-in form of the page as it is (the deep link stays the address). */
  async function signInHere(page: Page): Promise<void> {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation').waitFor();
  }
});
