// MCP servers as Apps in a real Chromium against the real api and the MCP project's reference server
// (server-everything, streamable HTTP on loopback): an admin registers the server on the Apps page as an MCP server,
// sees its name, version and tools (echo marked read-only) and its resources and prompts counted, reads why a server
// that cannot be used is refused, registers one with a bearer token that is then only said to be set, and enables
// the App for an Agent. In the chat (the offline model's
// `call <tool> <JSON>` form) a long-running tool's line says it is being called until it is done, the echo call shows
// done with its arguments one click away, and a call the server's schema refuses as failed; after a reload they are
// still listed, from the answers' provenance, and read in German after a switch of language. Screenshots at 390 and
// 1280 px; axe-core: 0 serious or critical violations in the light and the dark theme.
import type { Browser } from 'playwright-core';
import { appToolName } from '#apps/mcp/app-tool-name';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from '../support/api.js';
import { agentInNewSpace } from '../support/scenario.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  noSeriousViolations,
  SignedInPages,
} from './browser.js';

const run = chromiumOrSkip('MCP Apps (browser)');
const describeBrowser = run ? describe : describe.skip;

interface AppBody {
  readonly id: string;
  readonly name: string;
  readonly enablement: { readonly kind: string; readonly agentIds?: readonly string[] };
}

describeBrowser('MCP servers as Apps, and tool calls in the chat, in Chromium (e2e)', () => {
  let everything: EverythingServer;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  let agentId: string;
  const email = `mcp-admin-${Date.now()}@example.com`;
  const admin = () => client(api.url, ADMIN_KEY);
  const apps = async () => (await admin().get<{ data: AppBody[] }>(`${CORE}/apps?limit=200`)).body.data;

  beforeAll(async () => {
    builtOrFail();
    everything = await startEverythingServer();
    api = await startTestApi();
    ({ agentId } = await agentInNewSpace(
      admin(),
      { name: uniqueName('Echoer'), knowledgeEnabled: false, memoryEnabled: false },
      uniqueName('Tools'),
    ));
    await invitedPerson(api.url, email, { name: 'Ari Admin', role: 'admin' });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close(api);
    await everything?.stop();
  });

  it('an admin registers an MCP server, sees its tools, reads why another is refused, sets a bearer token, and enables it', async () => {
    const page = await pages.of(api.url, email);
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();

    const form = page.locator('form.app-register');
    await form.getByLabel('Name').fill('Everything');
    await form.getByLabel('An MCP server').check();
    await form.getByLabel('Server URL').fill(everything.url);
    expect(await form.getByLabel('Bearer token (optional)').getAttribute('type')).toBe('password');
    await form.getByRole('button', { name: 'Register' }).click();

    const card = page
      .locator('li.app-card')
      .filter({ has: page.getByRole('heading', { name: 'Everything', exact: true }) });
    await card.getByText(/MCP server\s+mcp-servers\/everything/).waitFor();
    expect(await card.innerText()).toContain('no authentication');
    expect(await card.innerText()).toMatch(/\d+ resources, \d+ prompts/);
    await card.getByText(/Tools of Everything \(\d+\)/).click();
    const echo = card.locator('.mcp-tools li').filter({ has: page.locator('code', { hasText: /^echo$/ }) });
    expect(await echo.innerText()).toContain('Echoes back the input string');
    expect(await echo.locator('.tool-mark').innerText()).toBe('read-only');
    const appId = (await apps()).find((app) => app.name === 'Everything')!.id;

    // A server that cannot be used: a sentence, the API's reason, nothing registered.
    await form.getByLabel('Name').fill('Nowhere');
    await form.getByLabel('An MCP server').check();
    await form.getByLabel('Server URL').fill('http://127.0.0.1:9/mcp');
    await form.getByLabel('Bearer token (optional)').fill('never-shown-token');
    await form.getByRole('button', { name: 'Register' }).click();
    const refusal = form.getByRole('alert');
    await refusal.getByText(/The MCP server could not be used: it could not be reached/).waitFor();
    expect(await refusal.locator('q').innerText()).toMatch(/initialized|reach|fetch|ECONNREFUSED/i);
    expect(await refusal.innerText()).not.toContain('never-shown-token');
    expect((await apps()).some((app) => app.name === 'Nowhere')).toBe(false);
    await screenshot(page, 'mcp-apps-registered-1280');
    await noSeriousViolations(page);

    // With a bearer token: the card says one is set, and the token is nowhere in the page.
    const bearer = `bearer-${Date.now()}`;
    await form.getByLabel('Name').fill('Everything with a token');
    await form.getByLabel('An MCP server').check();
    await form.getByLabel('Server URL').fill(everything.url);
    await form.getByLabel('Bearer token (optional)').fill(bearer);
    await form.getByRole('button', { name: 'Register' }).click();
    const sealed = page.locator('li.app-card').filter({ hasText: 'Everything with a token' });
    await sealed.getByText('bearer token set').waitFor();
    expect(await form.getByLabel('Bearer token (optional)').inputValue()).toBe('');
    expect(await page.content()).not.toContain(bearer);

    // Enabled for the Agent, as any App is.
    const agentName = (await admin().get<{ name: string }>(`${CORE}/agents/${agentId}`)).body.name;
    await card.getByLabel(agentName).check();
    await card.getByRole('button', { name: 'Save the Agents of Everything' }).click();
    await waitUntil(async () =>
      (await apps()).some((app) => app.id === appId && app.enablement.agentIds?.includes(agentId)),
    );

    const narrow = await pages.of(api.url, email, { width: 390 });
    await narrow.goto(`${api.url}/apps`);
    await narrow.getByText(/^Tools of Everything \(\d+\)$/).click();
    await screenshot(narrow, 'mcp-apps-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await noSeriousViolations(narrow);
  }, 90_000);

  it("shows an answer's tool calls while they run and after a reload, done or failed", async () => {
    // The server registered for this test's own Agent (the page's registration is the test above).
    const { agentId: toolUser } = await agentInNewSpace(admin(), {
      knowledgeEnabled: false,
      memoryEnabled: false,
    });
    const registered = await admin().post<AppBody>(`${CORE}/apps`, {
      name: 'Everything in the chat',
      source: { type: 'mcp', url: everything.url },
      enablement: { kind: 'agents', agentIds: [toolUser] },
    });
    expect(registered.status).toBe(201);
    const appId = registered.body.id;
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/chat/${toolUser}`);
    const answers = page.locator('li.message.assistant');
    const ask = async (nth: number, text: string) => {
      await page.getByLabel('Message', { exact: true }).fill(text);
      await page.getByRole('button', { name: 'Send' }).click();
      // The stored turn has replaced the streamed one.
      await answers.nth(nth).getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });
    };
    // A tool that takes three seconds (the server's own long-running demo): its line says so while it runs. Its name
    // is past what a model takes (64 characters), so the model knows it shortened, with a hash.
    const slow = appToolName(appId, 'trigger-long-running-operation');
    await page.getByLabel('Message', { exact: true }).fill(`call ${slow} {"duration":3,"steps":3}`);
    await page.getByRole('button', { name: 'Send' }).click();
    const slowName = slow.split('__')[1]!;
    await answers
      .first()
      .locator('li.tool-call[data-state="running"]')
      .getByText(`Calling ${slowName} …`)
      .waitFor();
    await screenshot(page, 'mcp-apps-chat-running-1280');
    await answers.first().getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });
    expect(await answers.first().innerText()).toContain('Long running operation completed.');
    await ask(1, `call ${appId}__echo {"message":"hi"}`);
    await answers.nth(1).getByText('Echo: hi').waitFor();
    await ask(2, `call ${appId}__get-sum {"a":"twenty"}`);

    const shows = async () => {
      await answers.first().getByText(`${slowName}: done`).waitFor();
      const echoed = answers.nth(1).getByRole('list', { name: 'Tools called' }).locator('li');
      await echoed.getByText('echo: done').waitFor();
      expect(await echoed.count()).toBe(1);
      // Named as the person knows it: the tool's own name, from the App's name.
      expect(await echoed.locator('summary').innerText()).toBe('echo: done from App Everything in the chat');
      // The arguments are one click away, indented.
      expect(await echoed.locator('pre').isVisible()).toBe(false);
      await echoed.locator('summary').click();
      expect(await echoed.locator('pre').innerText()).toBe('{\n  "message": "hi"\n}');
      const refused = answers.nth(2).getByRole('list', { name: 'Tools called' }).locator('li');
      await refused.getByText('get-sum: failed').waitFor();
      expect(await refused.getAttribute('data-state')).toBe('failed');
    };
    await shows();
    await screenshot(page, 'mcp-apps-chat-1280');
    await page.reload();
    await shows();
    await noSeriousViolations(page);

    const narrow = await pages.of(api.url, email, { width: 390 });
    await narrow.goto(page.url());
    await narrow.getByText('echo: done').waitFor();
    await narrow.getByText('get-sum: failed').waitFor();
    await screenshot(narrow, 'mcp-apps-chat-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await noSeriousViolations(narrow);

    // In German, the same lines in German.
    await narrow.getByRole('button', { name: 'Menu' }).click();
    await narrow.getByRole('navigation').locator('label.language select').selectOption('de');
    await narrow.getByText('echo: erledigt aus App Everything in the chat').waitFor();
    await narrow.getByText('get-sum: fehlgeschlagen').waitFor();
    await screenshot(narrow, 'mcp-apps-chat-390-de');
  }, 120_000);
});
