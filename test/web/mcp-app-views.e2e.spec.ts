// MCP App views in a real Chromium against the real api and the MCP project's example MCP App server
// (server-basic-vanillajs) as the App: a turn that calls `get-time` shows the tool's view under the answer, given
// the call's result through the ext-apps host bridge (live, and again once the answer is stored and after a reload);
// the view's own "Get Server Time" button calls the tool through the platform and the view updates; its "Send
// Message" puts the text into the message box (not sent); its "Open Link" is offered as a link for the person to
// click; the frame cannot reach the platform's document, cookies or storage. The instance has a separate App origin
// (APP_ORIGIN): the chat's frame-src holds the MCP views' path, not its own origin. Screenshots at 390 and 1280 px;
// axe-core: 0 serious or critical violations in the light and the dark theme.
import type { Browser, Frame, Page } from 'playwright-core';
import { startMcpAppExample, type McpAppExampleServer } from '#testing/mcp-app-example';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from '../support/api.js';
import { agentInNewSpace } from '../support/scenario.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  noSeriousViolations,
  screenshot,
  SignedInPages,
  expectFocus,
} from './browser.js';

const run = chromiumOrSkip('MCP App views (browser)');
const describeBrowser = run ? describe : describe.skip;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

/** The view's frame under the newest answer, once its document (the App's, not about:blank) has loaded. */
async function viewFrame(page: Page): Promise<Frame> {
  const element = page.locator('li.message.assistant').last().locator('section.mcp-view iframe');
  await element.waitFor();
  let frame: Frame | null = null;
  await expectEventually(async () => {
    frame = await (await element.elementHandle())!.contentFrame();
    return frame !== null && frame.url().includes('/mcp-views/');
  });
  await frame!.locator('#get-time-btn').waitFor();
  return frame!;
}

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const serverTime = (frame: Frame) => frame.locator('#server-time').innerText();

describeBrowser('MCP App views in the chat, in Chromium (e2e)', () => {
  let example: McpAppExampleServer;
  let api: TestApi;
  let browser: Browser;
  const pages = new SignedInPages(() => browser);
  let agentId: string;
  let appId: string;
  const email = `views-admin-${Date.now()}@example.com`;

  beforeAll(async () => {
    builtOrFail();
    example = await startMcpAppExample();
    // With a separate App origin the chat frames nothing of its own origin but the embed pages and the MCP views.
    api = await startTestApi({ APP_ORIGIN: 'http://apps.localhost:9' });
    const admin = client(api.url, ADMIN_KEY);
    ({ agentId } = await agentInNewSpace(
      admin,
      { name: uniqueName('Clock'), knowledgeEnabled: false, memoryEnabled: false },
      uniqueName('Views'),
    ));
    const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
      name: 'Clock App',
      source: { type: 'mcp', url: example.url },
      enablement: { kind: 'agents', agentIds: [agentId] },
    });
    expect(app.status).toBe(201);
    appId = app.body.id;
    await invitedPerson(api.url, email, { name: 'Vi View', role: 'admin' });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await pages.close(api);
    await example?.stop();
  });

  it("shows the tool's view under the answer; the view calls its tool through the host and cannot reach the platform", async () => {
    const page = await pages.of(api.url, email);
    const opened = await page.goto(`${api.url}/chat/${agentId}`);
    const frameSrc = (opened?.headers()['content-security-policy'] ?? '')
      .split('; ')
      .find((directive) => directive.startsWith('frame-src '));
    expect(frameSrc).toBe(
      `frame-src http://apps.localhost:9 ${api.url}/embed/ ${api.url}/api/v1/core/mcp-views/`,
    );
    await page.getByLabel('Message', { exact: true }).fill(`call ${appId}__get-time {}`);
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('li.message.assistant').last();
    await answer.getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });

    const frame = await viewFrame(page);
    // The call's own result reached the view through the bridge (tool-result).
    await expectEventually(async () => ISO_TIME.test(await serverTime(frame)));
    const first = await serverTime(frame);
    expect(await answer.locator('section.mcp-view iframe').getAttribute('sandbox')).toBe(
      'allow-scripts allow-forms',
    );
    expect(await answer.locator('section.mcp-view iframe').getAttribute('title')).toBe(
      'Clock App: view of get-time',
    );

    // Its own button: tools/call through the host, the platform's route, the server; the view shows the new time.
    await frame.getByRole('button', { name: 'Get Server Time' }).click();
    await expectEventually(async () => {
      const now = await serverTime(frame);
      return ISO_TIME.test(now) && now !== first;
    });

    // Isolated: an opaque origin, no way to the platform's document, cookies or storage.
    const reach = (await frame.evaluate(`(() => {
      const tried = (read) => { try { read(); return 'read'; } catch (error) { return error.name; } };
      return {
        origin: self.origin,
        parent: tried(() => parent.document.title),
        cookie: tried(() => document.cookie),
        storage: tried(() => localStorage.length),
      };
    })()`)) as Record<string, string>;
    expect(reach).toEqual({
      origin: 'null',
      parent: 'SecurityError',
      cookie: 'SecurityError',
      storage: 'SecurityError',
    });

    // A message from the view goes into the message box, for the person to send or not.
    await frame.getByRole('button', { name: 'Send Message' }).click();
    await answer.getByText('The view put this into the message box:').waitFor();
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('This is message text.');
    // A link it asks to open is offered, opened by the person's click in a new tab without an opener.
    await frame.getByRole('button', { name: 'Open Link' }).click();
    const link = answer.locator('.mcp-view-link a');
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://modelcontextprotocol.io/');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');

    await answer.locator('section.mcp-view').scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-app-views-1280', { fullPage: false });
    await noSeriousViolations(page);

    // After a reload the stored answer shows its view again, with the call's recorded result.
    await page.reload();
    const again = await viewFrame(page);
    await expectEventually(async () => (await serverTime(again)) === first);
  }, 120_000);

  it('asks the person before a view calls a tool set to ask first, and fits a 390 px screen', async () => {
    const page = await pages.of(api.url, email, { width: 390 });
    await page.goto(`${api.url}/chat/${agentId}`);
    await page.getByLabel('Message', { exact: true }).fill(`call ${appId}__get-time {}`);
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('li.message.assistant')
      .last()
      .getByRole('button', { name: 'Why this answer' })
      .waitFor({ timeout: 30_000 });
    const frame = await viewFrame(page);
    await expectEventually(async () => ISO_TIME.test(await serverTime(frame)));
    const first = await serverTime(frame);
    // Set after the turn (whose own call would ask too): the view's next call waits for the person.
    const admin = client(api.url, ADMIN_KEY);
    expect(
      (await admin.patch(`${CORE}/agents/${agentId}/tools/${appId}__get-time`, { approval: 'ask' })).status,
    ).toBe(200);
    await frame.getByRole('button', { name: 'Get Server Time' }).click();
    const view = page.locator('section.mcp-view').last();
    const prompt = view.getByRole('group', { name: 'The view asks to call get-time.' });
    await prompt.waitFor();
    expect(await prompt.locator('pre').innerText()).toBe('{}');
    // The decision is where the keyboard is.
    await expectFocus(page, 'textContent', 'Allow');
    await prompt.scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-app-views-ask-390', { fullPage: false });
    expect(await page.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await noSeriousViolations(page);
    await page.keyboard.press('Enter');
    await prompt.waitFor({ state: 'detached' });
    await expectEventually(async () => {
      const now = await serverTime(frame);
      return ISO_TIME.test(now) && now !== first;
    });
    await view.scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-app-views-390', { fullPage: false });
    await noSeriousViolations(page);
  }, 90_000);
});
