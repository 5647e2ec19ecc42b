// The Build pages in a real Chromium against the real api: an admin creates a Space (the slug checked as they type),
// creates an Agent in it, picks a model from the Agent's allowed models (tier, location and price shown), writes a
// system prompt in its editor (typed, undone and redone, searched) and inserts one from the Space's library, toggles
// sampling, features and embed settings, saves, sees the public Agent's embed in the preview frame, reloads and sees
// it all kept, copies a snippet; then renames the Space and deletes it after typing its name. No style or frame CSP
// violation on the way (the editor's styles live in its shadow root, the preview frames the instance's /embed/
// path). A member of a Space sees its Agent's settings read-only with the reason and no Save; an editor moves an
// Agent (refused, with the reason, into a Space they only use) and deletes it; a refused slug is a German sentence
// next to the field; the editor speaks German on a German page and highlights Markdown. axe-core: 0 serious or
// critical violations on each page (the Agent's settings in the light and the dark theme), screenshots at 390 and
// 1280 px.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  ADMIN_KEY,
  client,
  CORE,
  startTestApi,
  uniqueName,
  writeModelsFile,
  type TestApi,
} from '../support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  signIn,
  emulateTheme,
  expectFocus,
} from './browser.js';

const run = chromiumOrSkip('Build pages (browser)');
const describeBrowser = run ? describe : describe.skip;

interface AgentBody {
  readonly model: string;
  readonly systemPrompt: string;
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly knowledgeEnabled: boolean;
  readonly codeExecutionEnabled: boolean;
  readonly isPublic: boolean;
  readonly memoryEnabled: boolean;
  readonly embedWindowTitle: string;
  readonly embedLimits: Record<string, number | null>;
  readonly conversationTokenBudget: number | null;
}

describeBrowser('Spaces and Agents built in Chromium (e2e)', () => {
  let api: TestApi;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const stamp = Date.now();
  const people = {
    admin: { email: `ada-${stamp}@example.com`, name: 'Ada Admin', id: '' },
    member: { email: `mia-${stamp}@example.com`, name: 'Mia Member', id: '' },
    german: { email: `greta-${stamp}@example.com`, name: 'Greta Deutsch', id: '' },
    editor: { email: `ed-${stamp}@example.com`, name: 'Ed Editor', id: '' },
  };
  const admin = () => client(api.url, ADMIN_KEY);

  async function pageOf(email: string, width = 1280): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, api.url, email);
    return page;
  }

  /** The page at both widths, each checked by axe; with `dark`, in the dark theme too. */
  async function shots(page: Page, name: string, { dark = false } = {}): Promise<void> {
    for (const scheme of dark ? (['light', 'dark'] as const) : (['light'] as const)) {
      await emulateTheme(page, scheme);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, `${name}${scheme === 'dark' ? '-dark' : ''}-${width}`);
        expect(await seriousViolations(page)).toEqual([]);
      }
    }
    await emulateTheme(page, 'light');
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** The system prompt's editor: its content, named by the label (inside the editor's shadow root). */
  const promptEditor = (page: Page) => page.getByRole('textbox', { name: 'System prompt' });

  /**
   * The style and frame violations of the page's Content-Security-Policy the browser reports (none expected: the
   * editor's styles are adopted by its shadow root, the preview frames the instance's /embed/ path). The page's
   * favicon, a data: image that `img-src` refuses, is not this page's doing.
   */
  function cspViolations(page: Page): string[] {
    const seen: string[] = [];
    page.on('console', (message) => {
      const text = message.text();
      if (/Content Security Policy/i.test(text) && /"(style|frame|child|default)-src/.test(text))
        seen.push(text);
    });
    return seen;
  }

  beforeAll(async () => {
    builtOrFail();
    api = await startTestApi({
      MODELS_FILE: writeModelsFile([
        'providers:',
        "  fake: { baseUrl: 'http://127.0.0.1:9' }",
        'models:',
        '  - { key: quick-chat, modelId: quick, provider: fake, kind: chat, securityTier: secure, locationLabel: Our data centre, pricing: { input: 0.5, output: 1 } }',
        '  - { key: careful-chat, modelId: careful, provider: fake, kind: chat, securityTier: eu-hosted, locationLabel: Frankfurt, pricing: { input: 3, output: 15 } }',
      ]),
    });
    for (const [key, person] of Object.entries(people))
      person.id = (
        await invitedPerson(api.url, person.email, {
          name: person.name,
          role: key === 'admin' ? 'admin' : 'member',
        })
      ).userId;
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
  });

  it('an admin creates a Space and an Agent, picks a model, writes a system prompt, toggles settings, saves, reloads and sees them; renames and deletes the Space', async () => {
    const taken = await admin().post<{ slug: string }>(`${CORE}/spaces`, { name: uniqueName('Taken') });
    expect(taken.status).toBe(201);
    const page = await pageOf(people.admin.email);
    const violations = cspViolations(page);
    await page.getByRole('link', { name: 'New Space' }).click();
    await page.getByRole('heading', { name: 'New Space' }).waitFor();
    await page.getByText('Lowercase letters, digits and hyphens; it follows the name').waitFor();

    // The slug follows the name and is checked as the person types.
    const spaceName = `Research ${stamp}`;
    await page.getByLabel('Name').fill(spaceName);
    const slug = page.getByLabel('Slug');
    expect(await slug.inputValue()).toBe(`research-${stamp}`);
    await page.getByText(`The slug “research-${stamp}” is free.`).waitFor();
    await slug.fill('Not A Slug');
    await page.getByText('A slug has lowercase letters, digits and single hyphens only').waitFor();
    expect(await slug.getAttribute('aria-invalid')).toBe('true');
    await slug.fill(taken.body.slug);
    await page.getByText('A Space with this slug already exists.').waitFor();
    await slug.fill(`research-${stamp}`);
    await page.getByLabel('Description').fill('Where the research team builds its Agents.');
    await page.getByLabel('Colour').fill('#aa3366');
    await shots(page, 'build-new-space');
    await page.getByRole('button', { name: 'Create Space' }).click();

    // The Space's page, with its members and prompt library, and the navigation lists it.
    await page.getByRole('heading', { name: spaceName, level: 1 }).waitFor();
    await page.getByRole('navigation').getByRole('heading', { name: spaceName }).waitFor();
    const spaceId = new URL(page.url()).pathname.split('/')[2]!;
    const space = (await admin().get<Record<string, unknown>>(`${CORE}/spaces/${spaceId}`)).body;
    expect(space).toMatchObject({
      name: spaceName,
      slug: `research-${stamp}`,
      description: 'Where the research team builds its Agents.',
      color: '#aa3366',
    });
    const main = page.getByRole('main');
    expect(await main.getByRole('link', { name: 'Members' }).getAttribute('href')).toBe(
      `/space/${spaceId}/members`,
    );
    expect(await main.getByRole('link', { name: 'Prompt library' }).getAttribute('href')).toBe(
      `/space/${spaceId}/prompts`,
    );
    const prompt = await admin().post(`${CORE}/spaces/${spaceId}/prompts`, {
      title: 'Cite sources',
      text: 'Always cite your sources.',
    });
    expect(prompt.status).toBe(201);

    // An Agent in it; its settings open.
    await page.getByLabel('Name of a new Agent').fill('Librarian');
    await page.getByRole('button', { name: 'Create Agent' }).click();
    await page.getByRole('heading', { name: 'Librarian: Settings' }).waitFor();
    const agentId = new URL(page.url()).pathname.split('/')[2]!;

    // The Agent's allowed models, each with its tier, location and price.
    const careful = page.locator('label.model-option', { hasText: 'careful-chat' });
    await careful.getByText('EU-hosted').waitFor();
    await careful.getByText('Frankfurt').waitFor();
    await careful.getByText('$3.00 in / $15.00 out per million tokens').waitFor();
    await page.locator('label.model-option', { hasText: 'quick-chat' }).getByText('Secure').waitFor();
    await careful.getByRole('radio').check();

    // The system prompt typed into its editor; undo and redo; search; a prompt of the Space's library inserted at
    // the cursor; Tab leaves the editor (no focus trap).
    const editor = promptEditor(page);
    await editor.click();
    await page.keyboard.type('You are the team librarian.');
    expect(await editor.innerText()).toBe('You are the team librarian.');
    await page.keyboard.press('Control+z');
    // (An empty line is a <br>: no text.)
    expect(await editor.textContent()).toBe('');
    await page.keyboard.press('Control+Shift+z');
    expect(await editor.innerText()).toBe('You are the team librarian.');
    await page.keyboard.press('Control+f');
    await page.getByRole('textbox', { name: 'Find' }).fill('librarian');
    await page.getByRole('textbox', { name: 'Find' }).press('Escape');
    await page.getByRole('textbox', { name: 'Find' }).waitFor({ state: 'detached' });
    await editor.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' ');
    await page.keyboard.press('Tab');
    const insert = page.getByRole('button', { name: 'Insert from the prompt library' });
    await expectFocus(page, 'textContent', 'Insert from the prompt library');
    await insert.click();
    await page.getByRole('button', { name: /Cite sources/ }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await editor.innerText()).toBe('You are the team librarian. Always cite your sources.');
    // The focus is back in the editor, after the inserted text.
    await page.keyboard.type('!');
    expect(await editor.innerText()).toBe('You are the team librarian. Always cite your sources.!');
    await page.keyboard.press('Backspace');

    // Sampling: temperature on, top-p off; features; public turns the memory switches off, saying why.
    await page.getByLabel('Set Temperature').check();
    await page.getByLabel('Temperature', { exact: true }).fill('0.3');
    expect(await page.getByLabel('Top-p', { exact: true }).isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: 'Knowledge', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'Code execution', exact: true }).check();
    await page.getByLabel(/^Public Agent/).check();
    expect(await page.getByRole('checkbox', { name: 'Memory', exact: true }).isDisabled()).toBe(true);
    await page.getByText('Off because the Agent is public').first().waitFor();
    await page.getByLabel(/^Embed window title/).fill('Ask the librarian');
    await page.getByLabel('Messages per visitor a minute').fill('5');
    await page.getByLabel(/^Tokens of history/).fill('4000');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.locator('figure.snippet').first().waitFor();
    expect(await page.getByRole('button', { name: /^Copy:/ }).count()).toBe(3);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
    await page.getByRole('button', { name: 'Copy: Floating chat bubble' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied: Floating chat bubble' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(
      `<script src="${api.url}/embed/bubble.js" data-agent="${agentId}" defer></script>`,
    );
    // The public Agent's embed, live in the preview frame: its page with its message box.
    const preview = page.frameLocator('iframe.embed-preview');
    await preview.getByLabel('Message').waitFor();
    await preview.getByRole('button', { name: 'Send' }).waitFor();
    expect(await page.getByTitle('Preview of the embed of Librarian').getAttribute('src')).toBe(
      `/embed/${agentId}`,
    );
    await shots(page, 'build-agent-settings', { dark: true });

    const saved = (await admin().get<AgentBody>(`${CORE}/agents/${agentId}`)).body;
    expect(saved).toMatchObject({
      model: 'careful-chat',
      systemPrompt: 'You are the team librarian. Always cite your sources.',
      temperature: 0.3,
      topP: null,
      knowledgeEnabled: false,
      codeExecutionEnabled: true,
      isPublic: true,
      memoryEnabled: false,
      embedWindowTitle: 'Ask the librarian',
      embedLimits: { visitorMessagesPerMinute: 5, agentMessagesPerMinute: null, dailyCostUsd: null },
      conversationTokenBudget: 4000,
    });

    // After a reload the page shows what was saved.
    await page.reload();
    await page.getByRole('heading', { name: 'Librarian: Settings' }).waitFor();
    await page.locator('label.model-option', { hasText: 'careful-chat' }).waitFor();
    expect(
      await page.locator('label.model-option', { hasText: 'careful-chat' }).getByRole('radio').isChecked(),
    ).toBe(true);
    expect(await promptEditor(page).innerText()).toBe(saved.systemPrompt);
    expect(await page.getByLabel('Temperature', { exact: true }).inputValue()).toBe('0.3');
    expect(await page.getByLabel('Set Top-p').isChecked()).toBe(false);
    expect(await page.getByRole('checkbox', { name: 'Knowledge', exact: true }).isChecked()).toBe(false);
    expect(await page.getByRole('checkbox', { name: 'Code execution', exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel(/^Public Agent/).isChecked()).toBe(true);
    expect(await page.getByLabel('Messages per visitor a minute').inputValue()).toBe('5');
    expect(await page.getByLabel('Messages of all visitors a minute').inputValue()).toBe('');

    // The Space renamed from its page, reached from the navigation.
    await page.getByRole('link', { name: `Overview: ${spaceName}` }).click();
    await page.getByRole('heading', { name: 'Edit the Space' }).waitFor();
    const renamed = `Archive ${stamp}`;
    await page.getByRole('main').getByLabel('Name', { exact: true }).fill(renamed);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('heading', { name: renamed, level: 1 }).waitFor();
    await page.getByRole('navigation').getByRole('heading', { name: renamed }).waitFor();
    await shots(page, 'build-space-page');

    // Deleting says what goes with it, closes on Escape, and deletes only once the name is typed.
    const opener = page.getByRole('button', { name: `Delete “${renamed}”` });
    await opener.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Librarian').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await opener.click();
    const confirm = dialog.getByRole('button', { name: 'Delete for good' });
    await dialog.getByLabel(`Type “${renamed}” to confirm`).fill(spaceName);
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type “${renamed}” to confirm`).fill(renamed);
    await shots(page, 'build-delete-space');
    await confirm.click();
    await page.getByText('Choose an Agent to start chatting.').waitFor();
    expect((await admin().get(`${CORE}/spaces/${spaceId}`)).status).toBe(404);
    // The navigation reads the Spaces again once the deletion is answered: the heading goes a moment later.
    await page.getByRole('navigation').getByRole('heading', { name: renamed }).waitFor({ state: 'detached' });
    expect(await page.getByRole('navigation').getByRole('heading', { name: renamed }).count()).toBe(0);
    expect(violations).toEqual([]);
  }, 120_000);

  it("a member of the Space sees its Agent's settings read-only with the reason, and the Space page without edit", async () => {
    const space = await admin().post<{ id: string; name: string }>(`${CORE}/spaces`, {
      name: uniqueName('Sales'),
    });
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Pitch helper',
      systemPrompt: 'Help with pitches.',
    });
    expect(agent.status).toBe(201);
    const added = await admin().post(`${CORE}/spaces/${space.body.id}/members`, {
      userId: people.member.id,
      role: 'member',
    });
    expect(added.status).toBe(201);

    const page = await pageOf(people.member.email);
    await page.goto(`${api.url}/agent/${agent.body.id}/settings`);
    await page.getByRole('heading', { name: 'Pitch helper: Settings' }).waitFor();
    await page.getByText('You are a member of this Space: you use this Agent').waitFor();
    // The prompt in the same editor, read-only; nothing to insert; no embed preview for an Agent that is not public.
    expect(await promptEditor(page).innerText()).toBe('Help with pitches.');
    expect(await promptEditor(page).getAttribute('aria-readonly')).toBe('true');
    expect(await promptEditor(page).isEditable()).toBe(false);
    expect(await page.getByRole('button', { name: 'Insert from the prompt library' }).count()).toBe(0);
    await page.getByText('This Agent is not public: turn on "Public Agent" to embed it.').waitFor();
    expect(await page.locator('iframe.embed-preview').count()).toBe(0);
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel(/^Public Agent/).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Delete the Agent/ }).count()).toBe(0);
    await shots(page, 'build-agent-member');

    await page.getByRole('link', { name: `Overview: ${space.body.name}` }).click();
    await page.getByText('Only the owners of this Space and admins change or delete it.').waitFor();
    await page.getByText('Only the owners and editors of this Space and admins create').waitFor();
    expect(await page.getByLabel('Name of a new Agent').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Delete “/ }).count()).toBe(0);
    await shots(page, 'build-space-member');
  }, 60_000);

  it("a refusal is a sentence in the page's language next to the field it is about: a slug in use where the person cannot see, in German", async () => {
    const hidden = await admin().post<{ slug: string }>(`${CORE}/spaces`, { name: uniqueName('Hidden') });
    expect(hidden.status).toBe(201);
    const page = await pageOf(people.german.email);
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('link', { name: 'Neuer Space' }).click();
    await page.getByRole('heading', { name: 'Neuer Space' }).waitFor();
    await page.getByRole('main').getByLabel('Name', { exact: true }).fill(uniqueName('Eigener'));
    const slug = page.getByLabel('Kurzname (Slug)');
    // The person cannot see that Space, so the page finds the slug free; the API refuses it.
    await slug.fill(hidden.body.slug);
    await page.getByText(`Der Kurzname „${hidden.body.slug}“ ist frei.`).waitFor();
    await page.getByRole('button', { name: 'Space anlegen' }).click();
    await page.getByText('Dieser Kurzname ist schon vergeben. Wähle einen anderen.').waitFor();
    expect(await slug.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('heading', { name: 'Neuer Space' }).count()).toBe(1);
    await shots(page, 'build-refusal-de');
  }, 60_000);

  it("the system prompt's editor in German: its name and search field in German, Markdown highlighted (its styles in its shadow root)", async () => {
    const space = await admin().post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Regeln') });
    const added = await admin().post(`${CORE}/spaces/${space.body.id}/members`, {
      userId: people.german.id,
      role: 'editor',
    });
    expect(added.status).toBe(201);
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Regelwerk',
    });
    expect(agent.status).toBe(201);
    const page = await pageOf(people.german.email);
    const violations = cspViolations(page);
    await page.getByRole('navigation').locator('label.language select').selectOption('de');
    await page.goto(`${api.url}/agent/${agent.body.id}/settings`);
    await page.getByRole('heading', { name: 'Regelwerk: Einstellungen' }).waitFor();
    const editor = page.getByRole('textbox', { name: 'Systemprompt' });
    await editor.click();
    await page.keyboard.type('# Regeln');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Antworte **immer** auf Deutsch.');
    // The heading's text is bold: the highlighting's stylesheet applies inside the shadow root.
    const heading = editor.locator('.cm-line').first().locator('span').last();
    expect(
      await heading.evaluate(
        (span) =>
          (
            globalThis as unknown as { getComputedStyle(node: unknown): { fontWeight: string } }
          ).getComputedStyle(span).fontWeight,
      ),
    ).toBe('700');
    await page.keyboard.press('Control+f');
    await page.getByRole('textbox', { name: 'Suchen' }).waitFor();
    await page.getByRole('button', { name: 'weiter' }).waitFor();
    await shots(page, 'build-prompt-editor-de', { dark: true });
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Speichern', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Gespeichert.' }).waitFor();
    const saved = (await admin().get<AgentBody>(`${CORE}/agents/${agent.body.id}`)).body;
    expect(saved.systemPrompt).toBe('# Regeln\nAntworte **immer** auf Deutsch.');
    expect(violations).toEqual([]);
  }, 60_000);

  it('an editor moves an Agent to a Space they edit (not to one where they are a member: the reason is shown) and deletes it after confirming', async () => {
    const spaceOf = async (prefix: string, role: string) => {
      const space = await admin().post<{ id: string; name: string }>(`${CORE}/spaces`, {
        name: uniqueName(prefix),
      });
      const added = await admin().post(`${CORE}/spaces/${space.body.id}/members`, {
        userId: people.editor.id,
        role,
      });
      expect(added.status).toBe(201);
      return space.body;
    };
    const from = await spaceOf('From', 'editor');
    const readOnly = await spaceOf('Look', 'member');
    const to = await spaceOf('To', 'editor');
    const agent = await admin().post<{ id: string }>(`${CORE}/agents`, { spaceId: from.id, name: 'Mover' });
    expect(agent.status).toBe(201);

    const page = await pageOf(people.editor.email);
    await page.goto(`${api.url}/agent/${agent.body.id}/settings`);
    const target = page.getByLabel('Move to the Space');
    await target.selectOption({ label: readOnly.name });
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByText('You may move it only into a Space whose owner or editor you are.').waitFor();
    expect((await admin().get<{ spaceId: string }>(`${CORE}/agents/${agent.body.id}`)).body.spaceId).toBe(
      from.id,
    );

    await target.selectOption({ label: to.name });
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByText(`Moved to ${to.name}.`).waitFor();
    expect((await admin().get<{ spaceId: string }>(`${CORE}/agents/${agent.body.id}`)).body.spaceId).toBe(
      to.id,
    );

    await page.getByRole('button', { name: 'Delete the Agent “Mover”' }).click();
    await page
      .getByRole('dialog')
      .getByText('Its conversations, Knowledge and memories are deleted with it.')
      .waitFor();
    await shots(page, 'build-delete-agent');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: to.name, level: 1 }).waitFor();
    expect((await admin().get(`${CORE}/agents/${agent.body.id}`)).status).toBe(404);
  }, 60_000);
});
