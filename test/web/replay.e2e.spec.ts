// The Replay page in a real Chromium against the real api: an admin picks an Agent's recorded turns and another
// model, runs the replay, and reads each question's recorded and replayed answers side by side with the words that
// differ marked, the citations and the cost; a person who is no admin has no such page. Screenshots at 1280 and 390
// px; axe-core: 0 serious or critical violations in both themes.
import type { Browser, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
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

const run = chromiumOrSkip('Replay page (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('the replay page in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const stamp = Date.now();
  const adminPerson = { email: `rita-${stamp}@example.com` };
  const member = { email: `rolf-${stamp}@example.com` };
  let agentName = '';

  const pageOf = (email: string, width = 1280): Promise<Page> => pages.of(api.url, email, { width });

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    agentName = uniqueName('Guide');
    const { agentId } = await spaceWithAgent(api.url, uniqueName('Replays'), agentName);
    for (const message of ['What is a caldera?', 'And a fumarole?']) {
      const turn = await client(api.url, ADMIN_KEY).post(`${CORE}/llm/${agentId}/conversation`, { message });
      expect([200, 201]).toContain(turn.status);
    }
    await invitedPerson(api.url, adminPerson.email, { name: 'Rita Admin', role: 'admin' });
    await invitedPerson(api.url, member.email, { name: 'Rolf Member' });
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
  });

  it('an admin replays the turns against another model and reads them side by side', async () => {
    const page = await pageOf(adminPerson.email);
    await page.getByRole('link', { name: 'Replay', exact: true }).click();
    await page.getByRole('heading', { name: 'Replay', level: 1 }).waitFor();
    await page.getByLabel('Agent').selectOption({ label: agentName });
    await page.getByLabel('Model to compare with').selectOption('offline-chat');
    await page.getByRole('button', { name: 'Run the replay' }).click();
    await page
      .getByRole('status')
      .getByText(/^2 of 2 turns replayed\./)
      .waitFor();
    const turns = page.locator('li.replay-turn');
    expect(await turns.count()).toBe(2);
    const first = turns.first();
    await first.getByRole('heading', { name: 'What is a caldera?' }).waitFor();
    await first.getByRole('article', { name: 'Recorded: fake-chat' }).waitFor();
    await first.getByRole('article', { name: 'Replayed: offline-chat' }).waitFor();
    // The answers differ: the old side marks what is gone, the new side what is new.
    expect(await first.locator('article').first().locator('del').count()).toBeGreaterThan(0);
    expect(await first.locator('article').last().locator('ins').count()).toBeGreaterThan(0);
    await screenshot(page, 'replay-1280');
    expect(await seriousViolations(page)).toEqual([]);
    await emulateTheme(page, 'dark');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('fits a phone, and is no page of a person who is not admin', async () => {
    const narrow = await pageOf(adminPerson.email, 390);
    await narrow.goto(`${api.url}/replay`);
    await narrow.getByRole('button', { name: 'Run the replay' }).waitFor();
    await screenshot(narrow, 'replay-390');
    expect(await seriousViolations(narrow)).toEqual([]);
    const person = await pageOf(member.email);
    expect(await person.getByRole('link', { name: 'Replay', exact: true }).count()).toBe(0);
    await person.goto(`${api.url}/replay`);
    await person.getByRole('heading', { name: 'Not found' }).waitFor();
  });
});
