// The Tools section of an Agent's page offers Connect for an App of the Agent that acts in each person's name (an
// OAuth MCP App) this person has not connected, in a real Chromium against the real api and the MCP server built from
// the MCP SDK's own authorization-server and bearer parts (test/support/mcp-oauth-server.ts): the prompt and button the
// chat shows, connecting goes through the authorization server and comes back to the Agent's page, and the prompt is
// gone then. Screenshots at 390 and 1280 px; axe-core: 0 serious or critical violations.
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

const run = chromiumOrSkip("Connect on an Agent's Tools (browser)");
const describeBrowser = run ? describe : describe.skip;

describeBrowser("Connect for an OAuth MCP App on an Agent's Tools section in Chromium (e2e)", () => {
  let server: OAuthMcpServer;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  const email = `tools-connect-${Date.now()}@example.com`;

  beforeAll(async () => {
    builtOrFail();
    server = await startOAuthMcpServer();
    const port = await freePort();
    api = await startTestApi({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    await invitedPerson(api.url, email, { name: 'Tam Tools', role: 'admin' });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close(api);
    await server?.stop();
  });

  it('shows Connect for the App the person has not connected, and not once they have', async () => {
    const admin = client(api.url, ADMIN_KEY);
    const { agentId } = await agentInNewSpace(admin, { knowledgeEnabled: false, memoryEnabled: false });
    const registered = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Notes',
      source: { type: 'mcp', url: server.url, auth: { type: 'oauth' } },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    const appId = registered.body.id;
    // The admin key's person connected first: the App's tools are known.
    expect((await connectAccount(api.url, ADMIN_KEY, appId)).status).toBe(303);

    const page = await pages.of(api.url, email);
    await page.goto(`${api.url}/agent/${agentId}/settings`);
    const tools = page.locator('section.agent-tools');
    await tools.getByText('Notes needs you to connect your account.').waitFor({ timeout: 30_000 });
    await tools.getByText('whoami', { exact: true }).waitFor();
    await tools.scrollIntoViewIfNeeded();
    await screenshot(page, 'agent-tools-connect-1280');
    await noSeriousViolations(page);

    const narrow = await pages.of(api.url, email, { width: 390 });
    await narrow.goto(`${api.url}/agent/${agentId}/settings`);
    const narrowTools = narrow.locator('section.agent-tools');
    await narrowTools
      .getByRole('button', { name: 'Connect your account to Notes' })
      .waitFor({ timeout: 30_000 });
    await narrowTools.scrollIntoViewIfNeeded();
    await screenshot(narrow, 'agent-tools-connect-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await noSeriousViolations(narrow);

    const connect = tools.getByRole('button', { name: 'Connect your account to Notes' });
    await connect.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/agent/${agentId}/settings\\?app_connected=${appId}`));
    await page
      .locator('section.agent-tools')
      .getByText('whoami', { exact: true })
      .waitFor({ timeout: 30_000 });
    // Every request of the page answered: the Apps and the person's connection were read.
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('button', { name: 'Connect your account to Notes' }).count()).toBe(0);
    expect(
      (
        await client(api.url, ADMIN_KEY).get<{ data: { id: string; connectUrl?: string }[] }>(
          `${CORE}/agents/${agentId}/apps`,
        )
      ).body.data,
    ).toEqual([expect.objectContaining({ id: appId, connectUrl: `${CORE}/apps/${appId}/oauth/connect` })]);
  }, 120_000);
});
