// What an App tool's server does while the call runs, in a real Chromium against the real api and the MCP project's
// reference server (server-everything) as the App (the offline model's `call <tool> <JSON>` form): a long-running
// tool's progress shows on its running call (a bar and the steps done); its question for the person is a form built
// from the requested schema, focused and announced, answered with Answer (the tool reads the answer) or declined (in
// German at 390 px). Screenshots at 390 and 1280 px; axe-core: 0 serious or critical violations in both themes.
import type { Browser } from 'playwright-core';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
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

const run = chromiumOrSkip('Tool sessions (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser(
  'a running App tool call in the chat: its progress and its questions, in Chromium (e2e)',
  () => {
    let everything: EverythingServer;
    let api: TestApi;
    let browser: Browser;
    const pages = new SignedInPages(() => browser);
    let agentId: string;
    /** The model-facing names of the App's tools (a long one is shortened with a hash). */
    let names: Map<string, string>;
    /** A tool as the chat names it: its model-facing name after the App's id. */
    const shown = (tool: string) => names.get(tool)!.split('__')[1]!;
    const email = `sessions-admin-${Date.now()}@example.com`;

    beforeAll(async () => {
      builtOrFail();
      everything = await startEverythingServer();
      api = await startTestApi();
      const admin = client(api.url, ADMIN_KEY);
      ({ agentId } = await agentInNewSpace(
        admin,
        { name: uniqueName('Worker'), knowledgeEnabled: false, memoryEnabled: false },
        uniqueName('Sessions'),
      ));
      const app = await admin.post<{ id: string }>(`${CORE}/apps`, {
        name: 'Everything',
        source: { type: 'mcp', url: everything.url },
        enablement: { kind: 'agents', agentIds: [agentId] },
      });
      expect(app.status).toBe(201);
      const tools = await admin.get<{ data: { name: string; tool: string }[] }>(
        `${CORE}/agents/${agentId}/tools`,
      );
      names = new Map(tools.body.data.map((tool) => [tool.tool, tool.name]));
      await invitedPerson(api.url, email, { name: 'Ari Admin', role: 'admin' });
      browser = await launch();
    }, 120_000);

    afterAll(async () => {
      await pages.close(api);
      await everything?.stop();
    });

    it('shows a long-running call’s progress on the running call', async () => {
      const page = await pages.of(api.url, email);
      await page.goto(`${api.url}/chat/${agentId}`);
      await page
        .getByLabel('Message', { exact: true })
        .fill(`call ${names.get('trigger-long-running-operation')} {"duration":8,"steps":4}`);
      await page.getByRole('button', { name: 'Send' }).click();
      const running = page.locator('li.tool-call[data-state="running"]');
      await running.waitFor({ timeout: 30_000 });
      const bar = running.getByRole('progressbar', {
        name: `Progress of ${shown('trigger-long-running-operation')}`,
      });
      await bar.waitFor({ timeout: 30_000 });
      expect(await running.locator('.tool-progress').innerText()).toMatch(/^[1-4] of 4 \(\d+ %\)$/);
      expect(Number(await bar.getAttribute('max'))).toBe(4);
      await screenshot(page, 'tool-session-progress-1280');
      await noSeriousViolations(page);
      await page.getByText(/Long running operation completed/).waitFor({ timeout: 30_000 });
      // Done, the call says so and its bar is gone.
      await page.locator('li.tool-call[data-state="done"]').waitFor();
      expect(await page.locator('.tool-progress').count()).toBe(0);
    }, 90_000);

    it("asks the person with a form built from the server's schema; the tool reads the answer", async () => {
      const page = await pages.of(api.url, email);
      await page.goto(`${api.url}/chat/${agentId}`);
      await page
        .getByLabel('Message', { exact: true })
        .fill(`call ${names.get('trigger-elicitation-request')} {}`);
      await page.getByRole('button', { name: 'Send' }).click();
      const asked = page.locator('section.tool-elicitation');
      await asked
        .getByText(`${shown('trigger-elicitation-request')} asks you for some details.`)
        .waitFor({ timeout: 30_000 });
      expect(await asked.getByRole('status').innerText()).toBe(
        `${shown('trigger-elicitation-request')} asks you for some details. from App Everything`,
      );
      await asked.getByText('Please provide inputs for the following fields:').waitFor();
      // Focus is on the first field: the keyboard answers without looking for the form.
      await expectFocus(page, 'id', /-name$/);
      const name = asked.getByRole('textbox', { name: /^String \(required\)$/ });
      expect(await name.getAttribute('required')).not.toBeNull();
      expect(await asked.getByRole('checkbox', { name: 'Boolean', exact: true }).isChecked()).toBe(false);
      expect(await asked.getByRole('spinbutton', { name: 'Integer', exact: true }).inputValue()).toBe('42');
      expect(
        await asked.getByRole('combobox', { name: 'Titled Single Select Enum', exact: true }).inputValue(),
      ).toBe('hero-1');
      expect(
        await asked.getByRole('group', { name: 'Untitled Multiple Select Enum', exact: true }).isVisible(),
      ).toBe(true);
      await page.keyboard.type('Ada Lovelace');
      await asked.getByRole('checkbox', { name: 'Boolean', exact: true }).check();
      await asked.getByRole('spinbutton', { name: 'Integer', exact: true }).fill('7');
      await asked
        .getByRole('combobox', { name: 'Legacy Titled Single Select Enum', exact: true })
        .selectOption({ label: 'Dogs' });
      await asked.getByRole('checkbox', { name: 'Piano', exact: true }).check();
      await asked.scrollIntoViewIfNeeded();
      await screenshot(page, 'tool-session-question-1280');
      await noSeriousViolations(page);
      await asked.getByRole('button', { name: 'Answer' }).click();
      await asked.getByText(`You answered ${shown('trigger-elicitation-request')}.`).waitFor();
      expect(await asked.locator('form').count()).toBe(0);
      const answer = page.locator('li.message.assistant').first();
      await answer.getByText(/Name: Ada Lovelace/).waitFor({ timeout: 30_000 });
      expect(await answer.innerText()).toContain('Favorite Integer: 7');
    }, 90_000);

    it('at 390 px, in German: the form fits, and declining tells the tool', async () => {
      const narrow = await pages.of(api.url, email, { width: 390 });
      await narrow.goto(`${api.url}/chat/${agentId}`);
      await narrow.getByRole('button', { name: 'Menu' }).click();
      await narrow.getByRole('navigation').locator('label.language select').selectOption('de');
      await narrow
        .getByLabel('Nachricht', { exact: true })
        .fill(`call ${names.get('trigger-elicitation-request')} {}`);
      await narrow.getByRole('button', { name: 'Senden' }).click();
      const asked = narrow.locator('section.tool-elicitation');
      await asked
        .getByText(`${shown('trigger-elicitation-request')} bittet dich um ein paar Angaben.`)
        .waitFor({ timeout: 30_000 });
      await asked.getByRole('textbox', { name: /^String \(Pflichtfeld\)$/ }).waitFor();
      await screenshot(narrow, 'tool-session-question-390-de');
      expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
      // Declined before axe runs: under load axe takes seconds, and the server's question does not wait forever.
      await asked.getByRole('button', { name: 'Ablehnen' }).click();
      // Declined, or an error sentence: either way the section says which (a failure then names the error).
      await narrow
        .locator('section.tool-elicitation[data-answer="decline"], section.tool-elicitation p.error')
        .first()
        .waitFor({ timeout: 30_000 });
      expect(await asked.innerText()).toContain(
        `Du hast die Antwort an ${shown('trigger-elicitation-request')} abgelehnt.`,
      );
      await noSeriousViolations(narrow);
      await narrow
        .getByText(/User declined to provide the requested information/)
        .waitFor({ timeout: 30_000 });
      await screenshot(narrow, 'tool-session-declined-390-de');
    }, 90_000);
  },
);
