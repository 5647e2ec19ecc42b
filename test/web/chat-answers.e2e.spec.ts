// How an answer reads, in Chromium against the real api and a fake upstream: a streamed Markdown answer with a
// highlighted code block (its copy button puts the code on the clipboard), a table, an external link marked as
// opening a new tab and a same-origin link opening in place; its citation chip, named after its source, opens the
// passage with its section and version; "Why this answer" names the chunk used with its document version. The offline
// model runs code when asked: the run's code, output and file show under the answer, and again after a reload. A
// conversation past its token budget shows where the earlier messages were summarised, and the summary. Screenshots
// at 390 and 1280 px; axe-core: 0 serious or critical violations in the light and the dark theme.
import type { Browser, Page } from 'playwright-core';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import {
  startFakeUpstream,
  type FakeUpstream,
  type FakeUpstreamRequest,
} from '#testing/fake-openai-upstream';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import { sandboxAvailability } from '../support/sandbox-probe.js';
import {
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
import { VOLCANOES } from '../support/documents.js';

const run = chromiumOrSkip('chat answers (browser)');
const describeBrowser = run ? describe : describe.skip;

const CODE = 'def tallest(volcanoes):\n    return max(volcanoes, key=lambda v: v["height"])';
const ANSWER = [
  '## Etna',
  '',
  'Mount Etna is in Sicily [1]. More at [the survey](https://example.org/etna) or in [your memories](/memories).',
  '',
  '```python',
  CODE,
  '```',
  '',
  '| Volcano | Region |',
  '| --- | --- |',
  '| Etna | Sicily |',
  '| Vesuvius | Campania |',
].join('\n');

const isSummary = (request: FakeUpstreamRequest) =>
  ((request.body as { messages?: { role: string; content: unknown }[] }).messages ?? []).some(
    (message) => message.role === 'system' && String(message.content).includes('Summarise'),
  );

const codeRuns = await sandboxAvailability('chat answers: code runs');

describeBrowser('chat answers in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  let spaceId: string;
  let agentId: string;
  const email = `answers-${Date.now()}@example.com`;
  const admin = () => client(api.url, ADMIN_KEY);

  const newAgent = async (settings: Record<string, unknown>) => {
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId,
      name: uniqueName('Guide'),
      memoryEnabled: false,
      ...settings,
    });
    expect(agent.status).toBe(201);
    return agent.body.id;
  };
  const ask = async (page: Page, agent: string, text: string) => {
    await page.goto(`${api.url}/space/${spaceId}/agent/${agent}`);
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    // The stored turn has replaced the streamed one.
    await page.getByRole('button', { name: 'Why this answer' }).last().waitFor({ timeout: 30_000 });
  };

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    spaceId = (await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Answers') })).body.id;
    agentId = await newAgent({ model: 'fake-chat' });
    const doc = await admin().post<{ id: string }>(`${CORE}/knowledge/${agentId}/documents`, {
      name: 'volcanoes.md',
      text: VOLCANOES,
    });
    let status = '';
    for (let i = 0; i < 400 && status !== 'Ready'; i++) {
      await api.app.get(IngestionWorker).idle();
      status = (
        await admin().get<{ status: string }>(`${CORE}/knowledge/${agentId}/documents/${doc.body.id}`)
      ).body.status;
      if (status !== 'Ready') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe('Ready');
    const person = await invitedPerson(api.url, email);
    const member = await admin().post(`${CORE}/spaces/${spaceId}/members`, {
      userId: person.userId,
      role: 'member',
    });
    expect(member.status).toBe(201);
    browser = await launch();
  }, 120_000);

  afterAll(() => pages.close(api, upstream));

  it('renders a streamed answer: highlighted code with copy, a table, links marked by where they open', async () => {
    upstream.set({ reply: ANSWER, chunkDelayMs: 5 });
    const page = await pages.of(api.url, email, { clipboard: true });
    await ask(page, agentId, 'Which volcano is in Sicily?');
    const answer = page.locator('li.message.assistant').last();

    await answer.locator('h2', { hasText: 'Etna' }).waitFor();
    const code = answer.locator('.code-block pre code');
    await code.locator('span.hljs-keyword', { hasText: 'def' }).waitFor();
    expect(await code.locator('span.hljs-keyword').count()).toBeGreaterThanOrEqual(2);
    expect(await answer.locator('.code-block .code-language').innerText()).toBe('python');
    await answer.getByRole('button', { name: 'Copy the python code' }).click();
    await answer.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`${CODE}\n`);

    expect(await answer.locator('table th').allInnerTexts()).toEqual(['Volcano', 'Region']);
    expect(await answer.locator('table td').first().innerText()).toBe('Etna');

    const external = answer.getByRole('link', { name: 'the survey (opens in a new tab)' });
    expect(await external.getAttribute('href')).toBe('https://example.org/etna');
    expect(await external.getAttribute('target')).toBe('_blank');
    expect(await external.getAttribute('rel')).toBe('noopener noreferrer');
    const inPlace = answer.getByRole('link', { name: 'your memories', exact: true });
    expect(await inPlace.getAttribute('target')).toBeNull();

    await screenshot(page, 'chat-answers-markdown-1280');
    for (const theme of ['light', 'dark'] as const) {
      await emulateTheme(page, theme);
      expect(await page.locator('html').getAttribute('data-theme')).toBe(theme);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await screenshot(page, 'chat-answers-markdown-1280-dark');
    await emulateTheme(page, 'light');

    // The same-origin link opens in place (the app's own route).
    await inPlace.click();
    await page.waitForURL(`${api.url}/memories`);
  }, 90_000);

  it('a citation chip opens the passage with its section and version; "Why this answer" names the chunk used', async () => {
    upstream.set({ reply: 'Mount Etna is in Sicily [1].', chunkDelayMs: 5 });
    const page = await pages.of(api.url, email, { width: 390 });
    await ask(page, agentId, 'Which volcano is in Sicily?');
    const answer = page.locator('li.message.assistant').last();

    await answer.getByRole('button', { name: 'Source 1: volcanoes.md' }).click();
    const panel = page.locator('.citation-panel');
    await panel.locator('.passage', { hasText: 'Etna' }).waitFor();
    expect(await panel.locator('.section').innerText()).toContain('Etna');
    await panel.locator('.version', { hasText: 'indexed' }).waitFor();
    expect(await panel.locator('.version').innerText()).toContain('Version 1 as cited');
    await screenshot(page, 'chat-answers-citation-390');
    expect(await seriousViolations(page)).toEqual([]);
    await panel.getByRole('button', { name: 'Close' }).click();

    await answer.getByRole('button', { name: 'Why this answer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Why this answer' });
    const sources = dialog.locator('.why-sources li', { hasText: 'volcanoes.md' }).first();
    await sources.waitFor();
    expect(await sources.innerText()).toContain('version 1');
    expect(await sources.innerText()).toContain('cited as [1]');
    expect(await dialog.innerText()).toContain('fake-chat (fake)');
    const asOf = await dialog.getByRole('link', { name: /The Agent at revision/ }).getAttribute('href');
    expect(asOf).toMatch(new RegExp(`^/agent/${agentId}/history\\?asOf=`));
    await screenshot(page, 'chat-answers-why-390');
    for (const theme of ['light', 'dark'] as const) {
      await emulateTheme(page, theme);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await screenshot(page, 'chat-answers-why-390-dark');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  }, 90_000);

  (codeRuns ? it : it.skip)(
    'a code run shows its code, output and file under the answer, also after a reload',
    async () => {
      // The offline model (an Agent without a model of the fake upstream) runs the code of a fenced block.
      const coder = await newAgent({ codeExecutionEnabled: true, knowledgeEnabled: false });
      const page = await pages.of(api.url, email);
      await ask(
        page,
        coder,
        "Please run this:\n```python\nopen('heights.txt', 'w').write('3357')\nprint(6 * 7)\n```",
      );
      const shows = async () => {
        const run = page.locator('li.message.assistant .code-run').last();
        await run.locator('pre.output', { hasText: '42' }).waitFor();
        expect(await run.locator('pre.code').innerText()).toContain('print(6 * 7)');
        expect(await run.locator('h3').innerText()).toContain('exit code 0');
        const file = run.getByRole('link', { name: 'heights.txt' });
        const href = (await file.getAttribute('href'))!;
        expect(href).toMatch(/\/sandbox\/files\?path=heights\.txt$/);
        expect(await (await page.request.get(`${api.url}${href}`)).text()).toBe('3357');
      };
      await shows();
      await screenshot(page, 'chat-answers-code-run-1280');
      await page.reload();
      await shows();
      expect(await seriousViolations(page)).toEqual([]);
    },
    90_000,
  );

  it('marks where earlier messages were summarised, and opens the summary', async () => {
    upstream.set({
      reply: (request) => (isSummary(request) ? 'SUMMARY-OF-EARLIER' : 'Noted.'),
      chunkDelayMs: 0,
    });
    const budgeted = await newAgent({ model: 'fake-chat', knowledgeEnabled: false });
    expect((await admin().put(`${CORE}/agents/${budgeted}`, { conversationTokenBudget: 256 })).status).toBe(
      200,
    );
    const page = await pages.of(api.url, email, { width: 390 });
    await page.goto(`${api.url}/space/${spaceId}/agent/${budgeted}`);
    const marker = page.locator('details.compaction');
    for (const topic of ['basalt', 'pumice', 'obsidian', 'tuff', 'scoria']) {
      if (await marker.count()) break;
      const asked = await page.getByRole('button', { name: 'Why this answer' }).count();
      const paragraph = Array.from(
        { length: 15 },
        (_, i) => `Sentence ${i} about ${topic} has ten words in it.`,
      );
      await page.getByLabel('Message', { exact: true }).fill(paragraph.join(' '));
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('button', { name: 'Why this answer' }).nth(asked).waitFor({ timeout: 30_000 });
    }
    await marker.waitFor();
    await marker.locator('summary', { hasText: 'Earlier messages summarised for the model' }).click();
    await marker.locator('p', { hasText: 'SUMMARY-OF-EARLIER' }).waitFor();
    await screenshot(page, 'chat-answers-compaction-390');
    expect(await seriousViolations(page)).toEqual([]);
    await page.reload();
    await page.locator('details.compaction').waitFor();
  }, 120_000);
});
