// The operations page in a real Chromium against the real api: an admin reads the instance's health, every
// projection with the log position it applied and its lag (read again live: a new event moves the positions without a
// reload), and the configured models with their tier, location and price; a person who is not admin has no such
// page, and GET /models refuses them. Screenshots at 1280 and 390 px; axe-core: 0 serious or critical violations.
import type { Browser, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  SignedInPages,
  startApiWithFakeChat,
} from './browser.js';

const run = chromiumOrSkip('Operations page (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('the operations page in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const stamp = Date.now();
  const adminPerson = { email: `ops-${stamp}@example.com` };
  const person = { email: `pim-${stamp}@example.com` };

  const pageOf = (email: string, width = 1280): Promise<Page> => pages.of(api.url, email, { width });

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    await invitedPerson(api.url, adminPerson.email, { name: 'Oda Ops', role: 'admin' });
    await invitedPerson(api.url, person.email, { name: 'Pim Person', role: 'member' });
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it('an admin reads the health, the projections live, and the models', async () => {
    const page = await pageOf(adminPerson.email);
    await page.getByRole('link', { name: 'Operations', exact: true }).click();
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    await page.getByText(/^Status: working\. Version \d/).waitFor();
    const spaces = page.locator('tr[data-projection="spaces"]');
    await spaces.waitFor();
    const position = (text: string) => Number(text.replace(/\D/g, ''));
    const before = position(await spaces.locator('td').nth(1).innerText());
    // A new Space is a new event: the page shows the projection past it without a reload.
    expect(
      (await client(api.url, ADMIN_KEY).post(`${CORE}/spaces`, { name: uniqueName('Ops') })).status,
    ).toBe(201);
    await waitUntil(async () => position(await spaces.locator('td').nth(1).innerText()) > before, 10_000);

    const models = page.getByRole('region', { name: 'Models' });
    const fake = models.getByRole('row').filter({ hasText: 'fake-chat' });
    await fake.getByText('chat', { exact: true }).waitFor();
    expect(await fake.locator('.badge').count()).toBe(1);
    await models.getByRole('row').filter({ hasText: 'offline-chat' }).waitFor();
    await screenshot(page, 'operations-1280');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('fits a phone, and is no page of a person who is not admin', async () => {
    const narrow = await pageOf(adminPerson.email, 390);
    await narrow.goto(`${api.url}/operations`);
    await narrow.getByRole('heading', { name: 'Models' }).waitFor();
    await narrow.getByRole('button', { name: 'Rebuild spaces' }).waitFor();
    await screenshot(narrow, 'operations-390');
    expect(await seriousViolations(narrow)).toEqual([]);

    const member = await pageOf(person.email);
    expect(await member.getByRole('link', { name: 'Operations', exact: true }).count()).toBe(0);
    const refused = await member.evaluate(async (path) => (await fetch(path)).status, `${CORE}/models`);
    expect(refused).toBe(403);
  });

  it('an admin rebuilds a projection from the page, after confirming; the log records who asked', async () => {
    const generation = async () =>
      (
        await client(api.url, null).get<{ projections: { name: string; liveGeneration: number }[] }>(
          '/health',
        )
      ).body.projections.find((p) => p.name === 'spaces')!.liveGeneration;
    const before = await generation();
    const page = await pageOf(adminPerson.email);
    await page.goto(`${api.url}/operations`);
    await page.getByRole('button', { name: 'Rebuild spaces' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rebuild spaces?' });
    await dialog.waitFor();
    // Esc cancels: nothing is requested.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Rebuild spaces' }).click();
    await screenshot(page, 'operations-rebuild-confirm-1280');
    await dialog.getByRole('button', { name: 'Rebuild', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Rebuild requested.' }).waitFor();
    await waitUntil(async () => (await generation()) !== before, 20_000);

    const trail = await client(api.url, ADMIN_KEY).get<{
      data: { eventType: string; actor: { userId: string | null }; resource: { id: string } }[];
    }>(`${CORE}/audit?resourceType=projection`);
    expect(trail.body.data.map((entry) => [entry.eventType, entry.resource.id])).toEqual([
      ['ProjectionRebuildRequested', 'spaces'],
    ]);
    const me = await page.evaluate(
      async (path) => (await (await fetch(path)).json()) as { id: string },
      `${CORE}/users/me`,
    );
    expect(trail.body.data[0]!.actor.userId).toBe(me.id);
  });
});
