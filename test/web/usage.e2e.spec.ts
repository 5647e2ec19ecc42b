// The usage page in a real Chromium against the real api: a person who chatted with an Agent on the offline model
// (covered by the subscription) and one on a priced model (billable) reads their week, the charts by day, model and
// Agent (drawn on canvas; the text alternative names the models and the Agents with the API's figures) and the
// included and billable totals; an admin sets a weekly limit for the person, a limit for their API key and one for
// a Space (on /usage, and on the Space's page), sees each applied and removes one; a member reads the Space's limit
// read-only; the person's page shows their limit, and a limit small enough refuses the next call and the page says
// so. Screenshots at 390 and 1280 px in light and dark; axe 0 serious/critical.
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

const run = chromiumOrSkip('usage page (browser)');
const describeBrowser = run ? describe : describe.skip;

interface Part {
  key: string;
  records: { isIncludedUsage: boolean; inputTokens: number; outputTokens: number; costUsd: number }[];
}

describeBrowser('usage page in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const stamp = Date.now();
  const uma = {
    email: `uma-${stamp}@example.com`,
    name: 'Uma User',
    id: '',
    key: '',
    keyName: uniqueName('Uma key'),
    keyPrefix: '',
  };
  const ada = { email: `ada-${stamp}@example.com`, name: 'Ada Admin' };
  const paid = { name: uniqueName('Paid Writer'), id: '' };
  const offline = { name: uniqueName('Offline Helper'), id: '' };
  let spaceName: string;
  let spaceId: string;
  const admin = () => client(api.url, ADMIN_KEY);

  async function pageOf(email: string, width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const context = await browser.newContext({
      locale: 'en-US',
      viewport: { width, height: 900 },
      colorScheme,
    });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, api.url, email);
    return page;
  }
  const turn = (agentId: string) =>
    client(api.url, uma.key).post(`${CORE}/llm/${agentId}/conversation`, { message: 'What is a volcano?' });
  const tokens = (n: number) => `${new Intl.NumberFormat('en-US').format(n)} ${n === 1 ? 'token' : 'tokens'}`;
  const splitOf = (part: Part) => {
    const sum = (included: boolean) =>
      part.records
        .filter((r) => r.isIncludedUsage === included)
        .reduce((total, r) => total + r.inputTokens + r.outputTokens, 0);
    return { included: sum(true), billable: sum(false) };
  };
  /** The person's split as the API answers it (asked by the admin). */
  const partsBy = async (by: 'model' | 'agent') =>
    (await admin().get<{ parts: Part[] }>(`${CORE}/usage?dimension=user&by=${by}&subject=${uma.id}`)).body
      .parts;

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    spaceName = uniqueName('Studio');
    const made = await spaceWithAgent(api.url, spaceName, paid.name);
    paid.id = made.agentId;
    spaceId = made.spaceId;
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: made.spaceId,
      name: offline.name,
      model: 'offline-chat',
      memoryEnabled: false,
    });
    expect(agent.status).toBe(201);
    offline.id = agent.body.id;
    uma.id = (await invitedPerson(api.url, uma.email, { name: uma.name })).userId;
    await invitedPerson(api.url, ada.email, { name: ada.name, role: 'admin' });
    await addMembers(api.url, made.spaceId, [[uma.id, 'member']]);
    const key = await admin().post<{ key: string; keyPrefix: string }>(`${CORE}/api-keys`, {
      name: uma.keyName,
      owner: { email: uma.email },
      agents: 'all',
    });
    expect(key.status).toBe(201);
    uma.key = key.body.key;
    uma.keyPrefix = key.body.keyPrefix;
    for (const agentId of [offline.id, offline.id, paid.id]) expect((await turn(agentId)).status).toBe(201);
    // Recorded off the hot path: wait until the three turns are in the person's split.
    await waitUntil(async () => (await partsBy('agent')).length === 2, 10_000);
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
    await upstream?.close();
  });

  it('shows the week, the charts by day, model and Agent with their figures, and included vs billable', async () => {
    const models = await partsBy('model');
    const agents = await partsBy('agent');
    for (const [width, scheme] of [
      [1280, 'light'],
      [390, 'light'],
      [1280, 'dark'],
      [390, 'dark'],
    ] as const) {
      const page = await pageOf(uma.email, width, scheme);
      await page.goto(`${api.url}/usage`);
      await page.getByRole('heading', { name: 'This week' }).waitFor();
      await page.getByRole('heading', { name: 'Usage charts' }).waitFor();
      expect(await page.locator('section.week dd.limit').innerText()).toBe('No weekly limit.');
      expect(await page.locator('section.week .resets').innerText()).toMatch(
        /^Resets at .+ \(in \d+ (days?|hours?)\)$/,
      );
      // Three charts, each drawn (pixels on its canvas) and named by a summary.
      const canvases = page.locator('canvas[role="img"]');
      expect(await canvases.count()).toBe(3);
      for (const canvas of await canvases.all()) {
        const drawn = await canvas.evaluate((element) => {
          const c = element as unknown as {
            width: number;
            height: number;
            getContext(kind: '2d'): { getImageData(...a: number[]): { data: Uint8ClampedArray } };
          };
          const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
          let painted = 0;
          for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
          return painted;
        });
        expect(drawn).toBeGreaterThan(100);
        expect(await canvas.getAttribute('aria-label')).toMatch(/included, .+ billable$/);
      }
      // The text alternatives (opened as a person would): a row per model and per Agent (by name), with the API's
      // figures.
      for (const summary of await page.getByText('Figures as a table').all()) await summary.click();
      const byModel = page.locator('figure', { hasText: 'Usage by model' });
      for (const part of models) {
        const { included, billable } = splitOf(part);
        const row = byModel.getByRole('row', { name: new RegExp(`^${part.key} `) });
        expect(await row.locator('td').allInnerTexts()).toEqual([
          tokens(included),
          tokens(billable),
          tokens(included + billable),
        ]);
      }
      expect(models.map((part) => part.key).sort()).toEqual(['fake-chat', 'offline-chat']);
      const byAgent = page.locator('figure', { hasText: 'Usage by Agent' });
      for (const [agent, expected] of [
        [offline, agents.find((part) => part.key === offline.id)!],
        [paid, agents.find((part) => part.key === paid.id)!],
      ] as const) {
        const { included, billable } = splitOf(expected);
        const row = byAgent.getByRole('row', { name: new RegExp(`^${agent.name} `) });
        expect(await row.locator('td').allInnerTexts()).toEqual([
          tokens(included),
          tokens(billable),
          tokens(included + billable),
        ]);
      }
      // The offline model is covered by the subscription, the priced one billable.
      const totals = page.locator('section.included-billable');
      const offlineSplit = splitOf(models.find((part) => part.key === 'offline-chat')!);
      const paidSplit = splitOf(models.find((part) => part.key === 'fake-chat')!);
      expect(offlineSplit.billable).toBe(0);
      expect(paidSplit.included).toBe(0);
      expect(
        await totals
          .getByRole('row', { name: /^Included / })
          .locator('td')
          .allInnerTexts(),
      ).toEqual(['2', tokens(offlineSplit.included), '$0.00']);
      expect(
        await totals
          .getByRole('row', { name: /^Billable / })
          .locator('td')
          .first()
          .innerText(),
      ).toBe('1');
      await screenshot(page, `usage-${width}-${scheme}`);
      expect(await seriousViolations(page)).toEqual([]);
    }
    // In cost: the priced model's billable cost as the API counts it; other periods ask the API again.
    const page = await pageOf(uma.email);
    await page.goto(`${api.url}/usage`);
    await page.getByRole('radio', { name: 'Cost' }).check();
    const paidCost = models
      .find((part) => part.key === 'fake-chat')!
      .records.reduce((total, record) => total + record.costUsd, 0);
    const money = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 4,
    });
    const byModel = page.locator('figure', { hasText: 'Usage by model' });
    await byModel.getByText('Figures as a table').click();
    expect(
      await byModel
        .getByRole('row', { name: /^fake-chat / })
        .locator('td')
        .allInnerTexts(),
    ).toEqual(['$0.00', money.format(paidCost), money.format(paidCost)]);
    for (const period of ['This month', 'This week']) {
      const asked = page.waitForResponse((response) =>
        response.url().includes('/usage?dimension=user&by=model'),
      );
      await page.getByRole('radio', { name: period }).check();
      expect((await asked).status()).toBe(200);
      await page.getByRole('row', { name: /^Billable 1 / }).waitFor();
    }
    // In German: the labels, the figures and the time to the reset.
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { name: 'Diagramme der Nutzung' }).waitFor();
    expect(await page.locator('section.week .resets').innerText()).toMatch(
      /\((in|morgen) .*(Tag|Tagen|Stunden?)?\)$/,
    );
    expect(
      await page
        .getByRole('row', { name: /^Inklusive / })
        .locator('td')
        .first()
        .innerText(),
    ).toBe('2');
    await screenshot(page, 'usage-1280-de');
    // The choice is the person's (kept on their profile): back to English for the next test.
    await page.getByLabel('Sprache').selectOption('en');
    await page.getByRole('heading', { name: 'Usage charts' }).waitFor();
  }, 120_000);

  it('an admin sets limits for a person, an API key and a Space; the person sees theirs and is refused at it', async () => {
    const page = await pageOf(ada.email);
    await page.goto(`${api.url}/usage`);
    const people = page.getByRole('region', { name: 'Weekly limits of people' });
    await people.getByLabel('Person').selectOption({ label: `${uma.name} (${uma.email})` });
    await people.getByLabel('Tokens (empty: no token limit)').fill('1000000');
    await people.getByRole('button', { name: 'Set limit' }).click();
    await people.getByText('The limit is set.').waitFor();
    const umaRow = people.getByRole('row', { name: new RegExp(uma.name) });
    expect(await umaRow.locator('td').first().innerText()).toContain('1,000,000 tokens');

    const keys = page.getByRole('region', { name: 'Limits of API keys' });
    await keys.getByLabel('API key').selectOption({ label: `${uma.keyName} (${uma.keyPrefix}…)` });
    await keys.getByLabel('Cost in USD (empty: no cost limit)').fill('3');
    await keys.getByLabel('Window').selectOption('day');
    await keys.getByRole('button', { name: 'Set limit' }).click();
    await keys.getByText('The limit is set.').waitFor();
    expect(
      await keys
        .getByRole('row', { name: new RegExp(uma.keyName) })
        .locator('td')
        .first()
        .innerText(),
    ).toBe('$3.00 / Day');

    const spaces = page.getByRole('region', { name: 'Weekly limits of Spaces' });
    await spaces.getByLabel('Space').selectOption({ label: spaceName });
    await spaces.getByLabel('Cost in USD (empty: no cost limit)').fill('5');
    await spaces.getByLabel('At the limit').selectOption('allow');
    await spaces.getByRole('button', { name: 'Set limit' }).click();
    await spaces.getByText('The limit is set.').waitFor();
    const spaceRow = spaces.getByRole('row', { name: new RegExp(spaceName) });
    expect(await spaceRow.locator('td').first().innerText()).toBe('$5.00');
    const applied = await admin().get<{ limit: { costUsd: number; overage: string } }>(
      `${CORE}/cost-control/spaces/${spaceId}`,
    );
    expect(applied.body.limit).toMatchObject({ costUsd: 5, overage: 'allow' });
    // No amount: the form says what is missing, beside it, and sends nothing.
    await spaces.getByLabel('Cost in USD (empty: no cost limit)').fill('');
    await spaces.getByRole('button', { name: 'Set limit' }).click();
    await spaces.getByRole('alert').getByText('Enter a token limit, a cost limit or both.').waitFor();
    await screenshot(page, 'usage-admin-limits-1280');
    expect(await seriousViolations(page)).toEqual([]);
    const phone = await pageOf(ada.email, 390, 'dark');
    await phone.goto(`${api.url}/usage`);
    await phone.getByRole('row', { name: new RegExp(spaceName) }).waitFor();
    await screenshot(phone, 'usage-admin-limits-390-dark');
    expect(await seriousViolations(phone)).toEqual([]);
    // On the Space's page a member reads the Space's week and why they may not change it.
    const member = await pageOf(uma.email);
    await member.goto(`${api.url}/space/${spaceId}/settings`);
    const spaceLimit = member.getByRole('region', { name: 'Weekly spend limit' });
    await spaceLimit.locator('dd.limit').waitFor();
    await screenshot(member, 'usage-space-page-member');
    expect(await spaceLimit.locator('dd.limit').innerText()).toBe('$5.00');
    expect(await spaceLimit.innerText()).toContain('Only the owners of this Space and admins set its limit.');
    expect(await spaceLimit.getByRole('button').count()).toBe(0);
    expect(await seriousViolations(member)).toEqual([]);
    await spaceRow.getByRole('button', { name: `Remove the limit of ${spaceName}` }).click();
    await spaces.getByText('The limit is removed.').waitFor();
    await spaceRow.waitFor({ state: 'detached' });

    // The same limit on the Space's page, where its owners and admins set it.
    await page.goto(`${api.url}/space/${spaceId}/settings`);
    const onSpacePage = page.getByRole('region', { name: 'Weekly spend limit' });
    expect(await onSpacePage.locator('dd.limit').innerText()).toBe('No weekly limit.');
    await onSpacePage.getByLabel('Tokens (empty: no token limit)').fill('50000');
    await onSpacePage.getByRole('button', { name: 'Set limit' }).click();
    await onSpacePage.getByText('The limit is set.').waitFor();
    expect(await onSpacePage.locator('dd.limit').innerText()).toBe('50,000 tokens');
    expect(await onSpacePage.locator('.usage-meter').innerText()).toMatch(
      / of 50,000 tokens used \(\d+ %\)$/,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await onSpacePage.getByRole('button', { name: 'Remove the limit' }).click();
    await onSpacePage.getByText('The limit is removed.').waitFor();
    expect(await onSpacePage.locator('dd.limit').innerText()).toBe('No weekly limit.');

    const person = await pageOf(uma.email, 390);
    await person.goto(`${api.url}/usage`);
    const week = person.locator('section.week');
    await week.waitFor();
    expect(await week.locator('dd.limit').innerText()).toBe('1,000,000 tokens');
    expect(await week.locator('.usage-meter').innerText()).toMatch(
      /^[\d,]+ tokens of 1,000,000 tokens used \(0 %\)$/,
    );

    // A limit below what the week used: the next call is refused, and the page says so.
    await page.goto(`${api.url}/usage`);
    await people.getByLabel('Person').selectOption({ label: `${uma.name} (${uma.email})` });
    await people.getByLabel('Tokens (empty: no token limit)').fill('1');
    await people.getByRole('button', { name: 'Set limit' }).click();
    await people.getByText('The limit is set.').waitFor();
    await waitUntil(async () => (await turn(paid.id)).status === 429, 5_000);
    await person.reload();
    await person.locator('section.week .limit-reached').waitFor();
    expect(await person.locator('section.week .limit-reached').innerText()).toBe(
      'The limit is reached: requests are refused until the window resets.',
    );
    await screenshot(person, 'usage-limit-reached-390');
    expect(await seriousViolations(person)).toEqual([]);
  }, 120_000);
});
