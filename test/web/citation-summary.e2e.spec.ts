// Citations with the AI summary in Chromium (issue 23 §1): an Agent whose "Include AI summary" is on, its documents
// Ready and its section-summary index built (as test/knowledge-summary.e2e.spec.ts builds it), answers with the
// offline model, which cites [1]; in the chat, citation [1] opens the passage (document, section, the chunk's text)
// and the cluster summary next to it, once the answer has streamed and been replaced by the stored turn, and again
// after a reload of the conversation (the recorded answer keeps its citations' summary, sealed). axe-core: 0 serious
// or critical violations with the panel open.
import type { Browser } from 'playwright-core';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { SummaryIndexWorker } from '#knowledge/summary/summary-index.worker';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from '../support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  signIn,
} from './browser.js';

const K = `${CORE}/knowledge`;
const VOLCANOES = [
  '# Volcanoes of Italy',
  '',
  '## Sicily',
  '',
  'Mount Etna is an active stratovolcano on the east coast of Sicily. It is the tallest active volcano in Europe.',
  '',
  '## Campania',
  '',
  'Mount Vesuvius stands in Campania, near the Bay of Naples. Its eruption in 79 AD buried Pompeii.',
  '',
].join('\n');
const BREAD = [
  '# Sourdough',
  '',
  'Sourdough bread rises with a starter of wild yeast and lactic acid bacteria.',
  '',
  'The dough ferments slowly overnight before it is shaped and baked in a hot oven.',
  '',
].join('\n');

const run = chromiumOrSkip('citations with the AI summary (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('citations with the AI summary in Chromium (e2e)', () => {
  let api: TestApi;
  let browser: Browser;
  let spaceId: string;
  let agentId: string;
  let summaryText: string;
  const email = `cite-${Date.now()}@example.com`;

  beforeAll(async () => {
    builtOrFail();
    api = await startTestApi();
    const admin = client(api.url, ADMIN_KEY);
    spaceId = (await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Volcanoes') })).body.id;
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId,
      name: uniqueName('Guide'),
      memoryEnabled: false,
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    expect((await admin.put(`${CORE}/agents/${agentId}`, { includeAiSummary: true })).status).toBe(200);
    for (const [name, text] of [
      ['volcanoes.md', VOLCANOES],
      ['bread.md', BREAD],
    ] as const) {
      const doc = (await admin.post<{ id: string }>(`${K}/${agentId}/documents`, { name, text })).body;
      let status = '';
      for (let i = 0; i < 400 && status !== 'Ready'; i++) {
        await api.app.get(IngestionWorker).idle();
        status = (await admin.get<{ status: string }>(`${K}/${agentId}/documents/${doc.id}`)).body.status;
        if (status !== 'Ready') await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(status).toBe('Ready');
    }
    expect((await admin.post(`${K}/${agentId}/summary-index/build`, {})).status).toBe(202);
    let state = 'building';
    for (let i = 0; i < 400 && state === 'building'; i++) {
      await api.app.get(SummaryIndexWorker).idle();
      state = (await admin.get<{ status: string }>(`${K}/${agentId}/summary-index`)).body.status;
      if (state === 'building') await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(state).toBe('ready');
    // The summary the Agent's search serves for the question (the turn retrieves the same way).
    const found = await admin.post<{ summary?: { text: string } | null }>(`${K}/${agentId}/search`, {
      query: 'Which volcano is in Sicily?',
    });
    expect(found.body.summary?.text).toBeTruthy();
    summaryText = found.body.summary!.text;
    const person = await invitedPerson(api.url, email);
    // The person uses the Space's Agent as its member (Space roles decide what a person reaches).
    const member = await admin.post(`${CORE}/spaces/${spaceId}/members`, {
      userId: person.userId,
      role: 'member',
    });
    expect(member.status).toBe(201);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('citation [1] opens the passage and the cluster summary next to it, after the turn and after a reload', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, api.url, email);
    await page.goto(`${api.url}/space/${spaceId}/agent/${agentId}`);
    await page.getByLabel('Message', { exact: true }).fill('Which volcano is in Sicily?');
    await page.getByRole('button', { name: 'Send' }).click();
    // The stored turn has replaced the streamed one (its actions need the stored ids).
    const answer = page.locator('li.message.assistant[data-streaming="false"]');
    await answer.getByRole('button', { name: 'Delete message' }).waitFor();
    const opensPassageAndSummary = async () => {
      await answer
        .getByRole('button', { name: /^Source 1: volcanoes.md/ })
        .first()
        .click();
      const panel = page.locator('.citation-panel');
      await panel.locator('.passage', { hasText: 'Etna' }).waitFor();
      expect(await panel.innerText()).toContain('volcanoes.md');
      const summary = panel.locator('.summary');
      await summary.getByRole('heading', { name: 'AI summary' }).waitFor();
      // (The paragraph shows the summary's text; its line breaks are white space there.)
      const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
      expect(squeeze(await summary.locator('p').innerText())).toBe(squeeze(summaryText));
    };
    await opensPassageAndSummary();
    await screenshot(page, 'chat-citation-summary');
    expect(await seriousViolations(page)).toEqual([]);

    // A reload: the stored conversation's citation opens the same passage and summary.
    await page.reload();
    await answer.getByRole('button', { name: 'Delete message' }).waitFor();
    await opensPassageAndSummary();
    await context.close();
  }, 120_000);
});
