// Approving App tool calls in a real Chromium against the real api and the MCP project's reference server
// (server-everything) as the App: an admin sets the echo tool to "Ask first" on the Agent's settings page (a member of
// the Space reads the tools read-only, with the reason); in the chat (the offline model's `call <tool> <JSON>` form)
// the call waits with a prompt naming the tool and its arguments, focused; Allow makes the call (the answer echoes),
// Deny does not (the answer says it was refused), and the prompt says what was decided; a chat reloaded while a call
// waits asks again. Screenshots at 390 and 1280
// px, in German too; axe-core: 0 serious or critical violations in the light and the dark theme.
import type { Browser } from 'playwright-core';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { ADMIN_KEY, client, CORE, startTestApi, uniqueName, type TestApi } from '../support/api.js';
import { agentInNewSpace } from '../support/scenario.js';
import {
  addMembers,
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  noSeriousViolations,
  SignedInPages,
  expectFocus,
} from './browser.js';

const run = chromiumOrSkip('Tool approvals (browser)');
const describeBrowser = run ? describe : describe.skip;

interface AgentToolBody {
  readonly name: string;
  readonly enabled: boolean;
  readonly approval: string;
}

describeBrowser(
  'approving App tool calls, and the tool switches on the Agent page, in Chromium (e2e)',
  () => {
    let everything: EverythingServer;
    let api: TestApi;
    let browser: Browser;
    const pages = new SignedInPages(() => browser);
    let agentId: string;
    let spaceId: string;
    let appId: string;
    const email = `approvals-admin-${Date.now()}@example.com`;
    const memberEmail = `approvals-member-${Date.now()}@example.com`;
    const admin = () => client(api.url, ADMIN_KEY);
    const echoOf = async () =>
      (await admin().get<{ data: AgentToolBody[] }>(`${CORE}/agents/${agentId}/tools`)).body.data.find(
        (tool) => tool.name === `${appId}__echo`,
      );

    beforeAll(async () => {
      builtOrFail();
      everything = await startEverythingServer();
      api = await startTestApi();
      ({ agentId, spaceId } = await agentInNewSpace(
        admin(),
        { name: uniqueName('Asker'), knowledgeEnabled: false, memoryEnabled: false },
        uniqueName('Approvals'),
      ));
      const app = await admin().post<{ id: string }>(`${CORE}/apps`, {
        name: 'Everything',
        source: { type: 'mcp', url: everything.url },
        enablement: { kind: 'agents', agentIds: [agentId] },
      });
      expect(app.status).toBe(201);
      appId = app.body.id;
      await invitedPerson(api.url, email, { name: 'Ari Admin', role: 'admin' });
      const member = await invitedPerson(api.url, memberEmail, { name: 'Mo Member' });
      await addMembers(api.url, spaceId, [[member.userId, 'member']]);
      browser = await launch();
    }, 120_000);

    afterAll(async () => {
      await pages.close(api);
      await everything?.stop();
    });

    it("a manager sets a tool to ask first on the Agent's page; a member reads the tools only, with the reason", async () => {
      const page = await pages.of(api.url, email);
      await page.goto(`${api.url}/agent/${agentId}/settings`);
      const tools = page.locator('section.agent-tools');
      const echo = tools
        .locator('li.agent-tool')
        .filter({ has: page.locator('strong', { hasText: /^echo$/ }) });
      await echo.waitFor();
      expect(await echo.innerText()).toContain('Echoes back the input string');
      expect(await echo.innerText()).toContain('from App Everything');
      expect(await echo.getByRole('switch', { name: 'Offer echo to the Agent' }).isChecked()).toBe(true);
      const approval = echo.getByLabel('Calls of echo');
      expect(await approval.inputValue()).toBe('auto');
      await approval.selectOption({ label: 'Ask first' });
      await echo.getByRole('status').getByText('Saved.').waitFor();
      expect(await echoOf()).toMatchObject({ enabled: true, approval: 'ask' });
      await tools.scrollIntoViewIfNeeded();
      await screenshot(page, 'tool-approvals-settings-1280');
      await noSeriousViolations(page);

      const member = await pages.of(api.url, memberEmail, { width: 390 });
      await member.goto(`${api.url}/agent/${agentId}/settings`);
      const theirs = member
        .locator('li.agent-tool')
        .filter({ has: member.locator('strong', { hasText: /^echo$/ }) });
      await theirs.waitFor();
      expect(await theirs.getByLabel('Calls of echo').inputValue()).toBe('ask');
      expect(await theirs.getByLabel('Calls of echo').isDisabled()).toBe(true);
      expect(await theirs.getByRole('switch').isDisabled()).toBe(true);
      await member
        .locator('#agent-tools-readonly')
        .getByText(
          "Only the Agent's managers (the editors and owners of its Space, and admins) may change its tools.",
        )
        .waitFor();
      await member.locator('section.agent-tools').scrollIntoViewIfNeeded();
      await screenshot(member, 'tool-approvals-settings-member-390');
      expect(await member.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
      await noSeriousViolations(member);
    }, 90_000);

    it('the chat asks before the call: Allow makes it, Deny does not, each said under the answer', async () => {
      expect(
        (await admin().patch(`${CORE}/agents/${agentId}/tools/${appId}__echo`, { approval: 'ask' })).status,
      ).toBe(200);
      const page = await pages.of(api.url, email);
      await page.goto(`${api.url}/chat/${agentId}`);
      const answers = page.locator('li.message.assistant');
      const ask = async (text: string) => {
        await page.getByLabel('Message', { exact: true }).fill(text);
        await page.getByRole('button', { name: 'Send' }).click();
      };

      await ask(`call ${appId}__echo {"message":"hi"}`);
      const prompt = answers.first().locator('section.tool-approval');
      await prompt.getByText('The Agent wants to call echo. Allow it?').waitFor();
      expect(await prompt.getByRole('status').innerText()).toBe(
        'The Agent wants to call echo. Allow it? from App Everything',
      );
      expect(await prompt.locator('pre').innerText()).toBe('{\n  "message": "hi"\n}');
      // Focus is on Allow: the keyboard decides without looking for the prompt.
      await expectFocus(page, 'textContent', 'Allow');
      await screenshot(page, 'tool-approvals-prompt-1280');
      await noSeriousViolations(page);
      await page.keyboard.press('Enter');
      await prompt.getByText('You allowed the call of echo.').waitFor();
      await answers.first().getByText('Echo: hi').waitFor({ timeout: 30_000 });
      await answers.first().getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });
      expect(await prompt.getByRole('button').count()).toBe(0);

      await ask(`call ${appId}__echo {"message":"not this"}`);
      const second = answers.nth(1).locator('section.tool-approval');
      await second.getByRole('button', { name: 'Deny' }).click();
      await second.getByText('You denied the call of echo: it was not made.').waitFor();
      await answers.nth(1).getByRole('button', { name: 'Why this answer' }).waitFor({ timeout: 30_000 });
      const refused = await answers.nth(1).locator('.markdown').first().innerText();
      expect(refused).toMatch(/refused/i);
      expect(await answers.nth(1).innerText()).not.toContain('Echo: not this');
      // The earlier answer still says what was decided, though the conversation was reloaded after this turn.
      expect(await prompt.getByRole('status').innerText()).toContain('You allowed the call of echo.');
      await screenshot(page, 'tool-approvals-decided-1280');
      await noSeriousViolations(page);

      // At 390 px and in German: the third call waits with the prompt in German.
      const narrow = await pages.of(api.url, email, { width: 390 });
      await narrow.goto(page.url());
      await narrow.getByRole('button', { name: 'Menu' }).click();
      await narrow.getByRole('navigation').locator('label.language select').selectOption('de');
      await narrow.getByLabel('Nachricht', { exact: true }).fill(`call ${appId}__echo {"message":"wieder"}`);
      await narrow.getByRole('button', { name: 'Senden' }).click();
      const german = narrow.locator('section.tool-approval').last();
      await german.getByText('Der Agent möchte echo aufrufen. Erlauben?').waitFor();
      await screenshot(narrow, 'tool-approvals-prompt-390-de');
      expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
      await noSeriousViolations(narrow);
      await german.getByRole('button', { name: 'Erlauben' }).click();
      await german.getByText('Du hast den Aufruf von echo erlaubt.').waitFor();
      await narrow.getByText('Echo: wieder').waitFor({ timeout: 30_000 });
    }, 120_000);

    it('a chat reloaded while a call waits asks again, and Allow still makes the call', async () => {
      expect(
        (await admin().patch(`${CORE}/agents/${agentId}/tools/${appId}__echo`, { approval: 'ask' })).status,
      ).toBe(200);
      const page = await pages.of(api.url, email);
      await page.goto(`${api.url}/chat/${agentId}`);
      // The test before left the person's language German.
      await page.getByRole('navigation').locator('label.language select').selectOption('en');
      await page
        .getByLabel('Message', { exact: true })
        .fill(`call ${appId}__echo {"message":"after reload"}`);
      await page.getByRole('button', { name: 'Send' }).click();
      await page
        .locator('section.tool-approval')
        .getByText('The Agent wants to call echo. Allow it?')
        .waitFor();
      await page.waitForURL(/[?&]c=/);
      await page.reload();
      const prompt = page.locator('li.message.assistant section.tool-approval');
      await prompt.getByText('The Agent wants to call echo. Allow it?').waitFor({ timeout: 20_000 });
      expect(await prompt.locator('pre').innerText()).toBe('{\n  "message": "after reload"\n}');
      await screenshot(page, 'tool-approvals-after-reload-1280');
      await noSeriousViolations(page);
      await prompt.getByRole('button', { name: 'Allow' }).click();
      await prompt.getByText('You allowed the call of echo.').waitFor();
      await page.getByText('Echo: after reload').waitFor({ timeout: 30_000 });
    }, 90_000);
  },
);
