// A long conversation in Chromium against the real api: 1,000 messages (500 turns through the public API) open at
// their end with only the rows on screen in the page; the keyboard scrolls to the first message and back, and Tab
// walks through the rows without losing focus; a link to one answer (`?m=`) opens at it; a streamed answer stays in
// view at the end, and does not pull back a person who scrolled up. Screenshots at 390 and 1280 px of the screen (the
// page is tens of thousands of pixels tall); axe-core: 0 serious or critical violations (light and dark).
import type { Browser, Locator, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, uniqueName, type TestApi } from '../support/api.js';
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

const run = chromiumOrSkip('long conversation (browser)');
const describeBrowser = run ? describe : describe.skip;

const TURNS = 500;
/** The most rows the page may hold for a conversation of 1,000 messages: a screen's worth and a few either side. */
const MOST_ROWS = 60;
/** Answers of different heights, so that the rows are measured, not assumed alike. */
const answerTo = (question: string) => {
  const n = Number(/Question (\d+)\./.exec(question)?.[1] ?? -1);
  return n % 3 === 0 ? `Answer ${n}.\n\n- one point\n- another point\n- a third` : `Answer ${n}.`;
};

describeBrowser('a conversation of 1,000 messages in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const email = `long-${Date.now()}@example.com`;
  let chatPath: string;
  let conversationId: string;
  let ids: string[];

  const rows = (page: Page) => page.locator('ol.messages > li.message');
  const question = (page: Page, n: number) =>
    rows(page).filter({ has: page.locator('p.user-text', { hasText: new RegExp(`^Question ${n}\\.$`) }) });
  const answer = (page: Page, n: number) =>
    rows(page).filter({ has: page.locator('.markdown p', { hasText: new RegExp(`^Answer ${n}\\.$`) }) });
  /** Whole on screen, above the sticky composer. */
  const onScreen = async (page: Page, row: Locator) => {
    const box = await row.boundingBox();
    const composer = await page.locator('.composer').boundingBox();
    return !!box && !!composer && box.y >= -1 && box.y + box.height <= composer.y + 1;
  };
  const open = async (page: Page, query = '') => {
    await page.goto(`${api.url}${chatPath}?c=${conversationId}${query}`);
    await rows(page).first().waitFor();
  };

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream({
      reply: (request) => {
        const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
        return answerTo(String(messages.findLast((m) => m.role === 'user')?.content ?? ''));
      },
    });
    api = await startApiWithFakeChat(upstream);
    const { spaceId, agentId } = await spaceWithAgent(api.url, uniqueName('Long'), 'Archivist');
    chatPath = `/space/${spaceId}/agent/${agentId}`;
    const person = await invitedPerson(api.url, email);
    await addMembers(api.url, spaceId, [[person.userId, 'member']]);
    // The person's own conversation, turn by turn as the page would send them (a turn needs the one before it).
    const asPerson = client(api.url, null);
    const session = { cookie: person.cookie, origin: api.url };
    for (let n = 0; n < TURNS; n++) {
      const turn = await asPerson.post<{ conversationId: string }>(
        `${CORE}/llm/${agentId}/conversation`,
        { message: `Question ${n}.`, ...(conversationId ? { conversationId } : {}) },
        session,
      );
      if (turn.status !== 200 && turn.status !== 201) throw new Error(`turn ${n}: ${turn.status}`);
      conversationId = turn.body.conversationId;
    }
    ids = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await asPerson.get(
        `${CORE}/llm/${agentId}/conversation/${conversationId}/messages?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        session,
      );
      ids.push(...page.body.data.map((m) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(ids).toHaveLength(2 * TURNS);
    browser = await launch();
  }, 600_000);

  afterAll(() => pages.close(api, upstream));

  it('opens at its end with only the rows on screen in the page; the keyboard reaches the first message and back', async () => {
    const page = await pages.of(api.url, email);
    await open(page);
    const last = answer(page, TURNS - 1);
    await waitUntil(() => onScreen(page, last), 10_000);
    expect(await rows(page).count()).toBeLessThanOrEqual(MOST_ROWS);
    expect(await last.getAttribute('aria-posinset')).toBe(String(2 * TURNS));
    expect(await last.getAttribute('aria-setsize')).toBe(String(2 * TURNS));
    expect(await page.locator('ol.messages').getAttribute('aria-label')).toBe('Messages');
    await screenshot(page, 'chat-long-end-1280', { fullPage: false });
    for (const theme of ['dark', 'light'] as const) {
      await emulateTheme(page, theme);
      expect(await seriousViolations(page)).toEqual([]);
    }

    // Home, as on any long page: the first question, then End: the last answer again.
    await page.locator('#agent-title').click();
    await page.keyboard.press('Home');
    await waitUntil(() => onScreen(page, question(page, 0)), 10_000);
    expect(await question(page, 0).getAttribute('aria-posinset')).toBe('1');
    expect(await rows(page).count()).toBeLessThanOrEqual(MOST_ROWS);
    await screenshot(page, 'chat-long-start-1280', { fullPage: false });
    await page.keyboard.press('End');
    await waitUntil(() => onScreen(page, last), 10_000);

    // Shift+Tab from the message box lands on the last answer's actions.
    await page.getByLabel('Message', { exact: true }).focus();
    await page.keyboard.press('Shift+Tab');
    const focusedRow = page.locator('li.message:focus-within');
    expect(await focusedRow.getAttribute('aria-posinset')).toBe(String(2 * TURNS));

    // Tab walks down through the rows from the top: focus stays in the page, on rows the window renders as it goes.
    await page.keyboard.press('Home');
    await waitUntil(() => onScreen(page, question(page, 0)), 10_000);
    await page.locator('#agent-title').click();
    let reached = 0;
    for (let presses = 0; presses < 200 && reached < 20; presses++) {
      await page.keyboard.press('Tab');
      const place = Number((await focusedRow.count()) ? await focusedRow.getAttribute('aria-posinset') : 0);
      expect(place).toBeGreaterThanOrEqual(reached);
      reached = place;
    }
    expect(reached).toBeGreaterThanOrEqual(20);
    // Not hidden behind the sticky composer either.
    expect(await onScreen(page, page.locator(':focus'))).toBe(true);
    expect(await rows(page).count()).toBeLessThanOrEqual(MOST_ROWS);
  }, 120_000);

  it('a link to an answer opens at that answer, marked', async () => {
    const page = await pages.of(api.url, email, { width: 390 });
    const turn = Math.floor(TURNS * 0.3);
    const linked = 2 * turn + 1; // its answer
    await open(page, `&m=${ids[linked]}`);
    const row = page.locator('li.message[data-linked="true"]');
    await waitUntil(async () => (await row.count()) === 1 && (await onScreen(page, row)), 10_000);
    expect(await row.getAttribute('aria-posinset')).toBe(String(linked + 1));
    expect(await row.innerText()).toContain(`Answer ${turn}.`);
    await screenshot(page, 'chat-long-linked-390', { fullPage: false });

    // Without a link, the phone opens at the end too (the conversation list below the thread is not the end).
    await open(page);
    await waitUntil(() => onScreen(page, answer(page, TURNS - 1)), 10_000);
    expect(await rows(page).count()).toBeLessThanOrEqual(MOST_ROWS);
    await screenshot(page, 'chat-long-end-390', { fullPage: false });
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('a streamed answer stays in view at the end; a person who scrolls up is not pulled back', async () => {
    const page = await pages.of(api.url, email);
    await open(page);
    await waitUntil(() => onScreen(page, answer(page, TURNS - 1)), 10_000);
    const long = Array.from({ length: 60 }, (_, i) => `Line ${i} of a long answer.`).join('\n\n');
    upstream.set({ reply: long, chunkDelayMs: 40 });
    const streaming = page.locator('li.message.assistant[data-streaming="true"]');

    await page.getByLabel('Message', { exact: true }).fill('Tell me a long story.');
    await page.keyboard.press('Enter');
    // The answer grows taller than the screen: its newest line stays in view, above the composer.
    await streaming.locator('.markdown p', { hasText: 'Line 20 of' }).waitFor({ timeout: 20_000 });
    const lines = streaming.locator('.markdown p');
    for (const count of [25, 35]) {
      await waitUntil(
        async () => (await lines.count()) >= count && (await onScreen(page, lines.last())),
        10_000,
      );
    }

    // The person scrolls up to read: the rest of the answer streams in below, and the stored answer replaces the
    // streamed one, without taking them back down. (Rows do grow a little when the turn ends: their actions return.)
    await page.mouse.wheel(0, -1500);
    const end = () => onScreen(page, page.locator('li.message.assistant .markdown p').last());
    await waitUntil(async () => !(await end()));
    let reading: Locator | null = null;
    for (let n = 0; !reading && n < (await rows(page).count()); n++)
      if (await onScreen(page, rows(page).nth(n)))
        reading = page.locator(
          `ol.messages > li.message[aria-posinset="${await rows(page).nth(n).getAttribute('aria-posinset')}"]`,
        );
    expect(reading).not.toBeNull();
    await streaming.waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator('li.message.assistant .markdown p', { hasText: 'Line 59 of' }).waitFor();
    await page
      .locator('li.message.assistant')
      .last()
      .getByRole('button', { name: 'Why this answer' })
      .waitFor();
    expect(await onScreen(page, reading!)).toBe(true);
    expect(await end()).toBe(false);
  }, 60_000);
});
