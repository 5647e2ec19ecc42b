// A URL App's tools and documents in a real Chromium against the real api and a small URL App on loopback (we own its
// contract): the Apps page lists the tools its `/meta` declares with their read-only or destructive mark, the path
// each is POSTed to and the arguments its schema names (required ones marked), and the documents it offers for
// Knowledge, in English and German; in the chat the signed-in person's `call <tool> <JSON>` reaches the App with
// their `svc_session_token` and the answer shows the call done. Screenshots at 390 and 1280 px; axe-core: 0 serious or
// critical violations in the light and the dark theme.
import type { Browser } from 'playwright-core';
import { AppSessionTokens } from '#apps';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from '../support/api.js';
import { agentInNewSpace } from '../support/scenario.js';
import { json, startUrlApp, WEATHER_TOOLS, type UrlApp } from '../support/url-app.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  noSeriousViolations,
  screenshot,
  SignedInPages,
} from './browser.js';

const run = chromiumOrSkip('URL App tools (browser)');
const describeBrowser = run ? describe : describe.skip;

const META = {
  id: 'weather',
  name: 'Weather',
  tools: WEATHER_TOOLS,
  documents: [{ uri: 'weather://stations', name: 'Weather stations', path: '/docs/stations.md' }],
};

describeBrowser("a URL App's tools on the Apps page and in the chat, in Chromium (e2e)", () => {
  let api: TestApi;
  let browser: Browser;
  let weather: UrlApp;
  const pages = new SignedInPages(() => browser);
  const email = `url-tools-admin-${Date.now()}@example.com`;
  const admin = () => client(api.url, ADMIN_KEY);

  beforeAll(async () => {
    builtOrFail();
    weather = await startUrlApp(META, ({ body }, response) => {
      const { city } = JSON.parse(body || '{}') as { city?: string };
      json(response, 200, { content: `Sunny in ${city ?? 'nowhere'}` });
    });
    api = await startTestApi();
    await invitedPerson(api.url, email, { name: 'Uma Url', role: 'admin' });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close(api);
    weather.close();
  });

  it('lists the tools with their marks, paths and arguments, and the documents, in English and German', async () => {
    const registered = await admin().post(`${CORE}/apps`, {
      name: 'Weather',
      source: { type: 'url', url: weather.url },
    });
    expect(registered.status).toBe(201);
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/apps`);
    const card = page
      .locator('li.app-card')
      .filter({ has: page.getByRole('heading', { name: 'Weather', exact: true }) });
    await card.getByText('Tools of Weather (2)').click();
    const forecast = card
      .locator('.mcp-tools li')
      .filter({ has: page.locator('code', { hasText: /^forecast$/ }) });
    expect(await forecast.locator('.tool-mark').innerText()).toBe('read-only');
    expect(await forecast.innerText()).toContain(
      'Called as POST /tools/forecast · Arguments: city*, days (* required)',
    );
    const forget = card
      .locator('.mcp-tools li')
      .filter({ has: page.locator('code', { hasText: /^forget-city$/ }) });
    expect(await forget.locator('.tool-mark').innerText()).toBe('destructive');
    expect(await forget.innerText()).toContain('Called as POST /api/forget · No arguments');
    await card.getByText('Documents of Weather for Knowledge (1)').click();
    await card.getByText('weather://stations').waitFor();
    await screenshot(page, 'url-app-tools-1280');
    await noSeriousViolations(page);

    const narrow = await pages.of(api.url, email, { width: 390 });
    await narrow.goto(`${api.url}/apps`);
    const narrowCard = narrow.locator('li.app-card').filter({ hasText: weather.url });
    await narrowCard.getByText('Tools of Weather (2)').click();
    await narrowCard.getByText('Documents of Weather for Knowledge (1)').click();
    await screenshot(narrow, 'url-app-tools-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await noSeriousViolations(narrow);

    await narrow.getByRole('button', { name: 'Menu' }).click();
    await narrow.getByRole('navigation').locator('label.language select').selectOption('de');
    await narrowCard
      .getByText('Aufgerufen als POST /tools/forecast · Argumente: city*, days (* erforderlich)')
      .waitFor();
    await narrowCard.getByText('Dokumente von Weather für das Wissen (1)').waitFor();
    await screenshot(narrow, 'url-app-tools-390-de');
    // The choice of language is the person's: back to English for what follows.
    await narrow.getByRole('navigation').locator('label.language select').selectOption('en');
    await narrowCard.getByText('Tools of Weather (2)').waitFor();
  }, 90_000);

  it("calls a tool from the chat with the signed-in person's svc_session_token", async () => {
    const { agentId } = await agentInNewSpace(admin(), {
      name: uniqueName('Forecaster'),
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
    const registered = await admin().post<{ id: string }>(`${CORE}/apps`, {
      name: 'Weather in the chat',
      source: { type: 'url', url: weather.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(registered.status).toBe(201);
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/chat/${agentId}`);
    const before = weather.seen.length;
    await page
      .getByLabel('Message', { exact: true })
      .fill(`call ${registered.body.id}__forecast {"city":"Berlin"}`);
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('li.message.assistant').first();
    await answer.getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });
    await answer.getByText('Sunny in Berlin').waitFor();
    // Named as the person knows it: the tool's own name, from the App's name.
    await answer.getByText('forecast: done').waitFor();
    expect(await answer.locator('li.tool-call summary').innerText()).toBe(
      'forecast: done from App Weather in the chat',
    );
    const headers = weather.seen.slice(before).map((request) => request.headers);
    expect(headers).toHaveLength(1);
    const claims = await api.app.get(AppSessionTokens).verify(String(headers[0]!.svc_session_token));
    const me = await client(api.url, null).get<{ id: string }>(`${CORE}/users/me`, {
      cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
    });
    expect(claims).toMatchObject({ appId: registered.body.id, userId: me.body.id });
    await screenshot(page, 'url-app-tools-chat-1280');
    await noSeriousViolations(page);

    const narrow = await pages.of(api.url, email, { width: 390 });
    await narrow.goto(page.url());
    await narrow.getByText('forecast: done').waitFor();
    await screenshot(narrow, 'url-app-tools-chat-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
  }, 90_000);
});
