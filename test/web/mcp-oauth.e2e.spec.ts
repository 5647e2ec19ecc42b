// An MCP App that signs in each person (OAuth 2.1) on the Apps page, in a real Chromium against the real api and an
// MCP server built from the MCP SDK's own authorization-server and bearer parts (test/support/mcp-oauth-server.ts):
// an admin registers it with "each person signs in", reads that its tools come with the first connection, connects
// their account (the browser goes to the authorization server, which approves at once, and comes back through the
// callback), sees it connected with the server's tools, and disconnects. PUBLIC_URL is the api's own address, as the
// callback the authorization server redirects to is built from it. In the chat, a tool call of the App before the
// admin connected shows the App's Connect button under the answer; connecting from there comes back to the chat. Screenshots at 390 and 1280 px; axe-core: 0
// serious or critical violations in the light and the dark theme.
import type { Browser } from 'playwright-core';
import { freePort } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, startTestApi, type TestApi } from '../support/api.js';
import { agentInNewSpace } from '../support/scenario.js';
import { connectAccount, startOAuthMcpServer, type OAuthMcpServer } from '../support/mcp-oauth-server.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  noSeriousViolations,
  screenshot,
  SignedInPages,
} from './browser.js';

const run = chromiumOrSkip('MCP Apps with OAuth (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('An MCP App that signs in each person, on the Apps page in Chromium (e2e)', () => {
  let server: OAuthMcpServer;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const email = `oauth-admin-${Date.now()}@example.com`;

  beforeAll(async () => {
    builtOrFail();
    server = await startOAuthMcpServer();
    const port = await freePort();
    api = await startTestApi({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await invitedPerson(api.url, email, { name: 'Olu Admin', role: 'admin' });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close(api);
    await server?.stop();
  });

  it('registers it, connects the admin’s account through the authorization server, and disconnects it', async () => {
    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/apps`);
    const form = page.locator('form.app-register');
    await form.getByLabel('Name').fill('Notes');
    await form.getByLabel('An MCP server').check();
    await form.getByLabel('Server URL').fill(server.url);
    await form.getByLabel('Each person signs in with their own account (OAuth 2.1)').check();
    expect(await form.getByLabel('Bearer token (optional)').count()).toBe(0);
    await form.getByRole('button', { name: 'Register' }).click();

    const card = page
      .locator('li.app-card')
      .filter({ has: page.getByRole('heading', { name: 'Notes', exact: true }) });
    await card.getByText('Your account is not connected').waitFor();
    expect(await card.innerText()).toContain('each person signs in (OAuth)');
    expect(await card.innerText()).toContain(
      'Its tools are read when the first person connects their account.',
    );
    await screenshot(page, 'mcp-oauth-registered-1280');
    await noSeriousViolations(page);

    await card.getByRole('button', { name: 'Connect your account to Notes' }).click();
    await page.waitForURL(/\/apps\?app_connected=/);
    const connected = page
      .locator('li.app-card')
      .filter({ has: page.getByRole('heading', { name: 'Notes', exact: true }) });
    await connected.getByText('Your account is connected').waitFor();
    await connected
      .getByText(/whoami/)
      .first()
      .waitFor({ state: 'attached' });
    await screenshot(page, 'mcp-oauth-connected-1280');
    await noSeriousViolations(page);

    const narrow = await pages.of(api.url, email, { width: 390 });
    await narrow.goto(`${api.url}/apps`);
    await narrow.getByText('Your account is connected').waitFor();
    await screenshot(narrow, 'mcp-oauth-connected-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await noSeriousViolations(narrow);

    await connected.getByRole('button', { name: 'Disconnect your account from Notes' }).click();
    await connected.getByText('Your account is not connected').waitFor();
    await connected.getByRole('button', { name: 'Connect your account to Notes' }).focus();
  }, 120_000);

  it('offers Connect under an answer whose tool call needed the person’s account, and the call works after', async () => {
    const admin = client(api.url, ADMIN_KEY);
    const { agentId } = await agentInNewSpace(admin, { knowledgeEnabled: false, memoryEnabled: false });
    const registered = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes',
      source: { type: 'mcp', url: server.url, auth: { type: 'oauth' } },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    const appId = registered.body.id;
    // Someone else (the admin key's person) connected first: the App's tools are known.
    expect((await connectAccount(api.url, ADMIN_KEY, appId)).status).toBe(303);

    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/chat/${agentId}`);
    // A page slow to render (a busy machine) saw its turn end before it had rendered the new conversation: it then
    // loaded the stored messages over the streamed answer, and the Connect prompt went. The CPU slowed 20× shows it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
    const answers = page.locator('li.message.assistant');
    await page.getByLabel('Message', { exact: true }).fill(`call ${appId}__whoami {}`);
    await page.getByRole('button', { name: 'Send' }).click();
    await answers.first().getByText('Notes needs you to connect your account.').waitFor({ timeout: 30_000 });
    await answers.first().getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await screenshot(page, 'mcp-oauth-chat-connect-1280');
    await noSeriousViolations(page);
    // The prompt lives on this page's streamed answer: the same page, narrowed.
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, 'mcp-oauth-chat-connect-390');
    expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });

    await answers.first().getByRole('button', { name: 'Connect your account to Notes' }).click();
    await page.waitForURL(/app_connected=/);
    await page.getByLabel('Message', { exact: true }).fill(`call ${appId}__whoami {}`);
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByText(/signed in as account-\d/)
      .first()
      .waitFor({ timeout: 30_000 });
  }, 120_000);
});
