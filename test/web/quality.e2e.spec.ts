// The web app's quality bars in a real Chromium against the real api: every page, signed out too, at 390, 768 and
// 1280 px in the light and the dark theme (the system's choice) scrolls no wider than the screen and has no serious
// or critical axe violation; at 390 px the navigation folds into a menu that Esc closes and the chat's composer is in
// view; the theme toggle overrides the system and survives a reload; Tab reaches the main actions with a visible
// focus, after a skip link; on a German page a refused action is a German sentence, and a plain member reads the
// Agent's settings without a form to change them. Screenshots of each page at 390 and 1280 px in both themes.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  addMembers,
  ARTIFACTS,
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  signIn,
  spaceWithAgent,
  startApiWithFakeChat,
  emulateTheme,
} from './browser.js';

const run = chromiumOrSkip('quality bars (browser)');
const describeBrowser = run ? describe : describe.skip;

// What the page functions read: they run in the page, so each names globalThis (the tests compile without the DOM
// types).
interface PageGlobals {
  readonly document: {
    readonly documentElement: { readonly scrollWidth: number };
    readonly activeElement: unknown;
    readonly body: { readonly innerText: string };
  };
  readonly innerWidth: number;
  getComputedStyle(element: unknown): { readonly outlineStyle: string; readonly backgroundColor: string };
}

const WIDTHS = [390, 768, 1280] as const;
const THEMES = ['light', 'dark'] as const;

describeBrowser('quality bars of the web app in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let spaceId: string;
  let agentId: string;
  let conversationId: string;
  const stamp = Date.now();
  const people = {
    admin: { email: `ada-${stamp}@example.com`, name: 'Ada Admin', id: '', cookie: '' },
    editor: { email: `ed-${stamp}@example.com`, name: 'Ed Editor', id: '', cookie: '' },
    member: { email: `mia-${stamp}@example.com`, name: 'Mia Member', id: '', cookie: '' },
  };
  const admin = () => client(api.url, ADMIN_KEY);

  async function pageOf(email: string | null, width = 1280): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width, height: 844 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    if (email) await signIn(page, api.url, email);
    return page;
  }

  /**
   * Switches the page to German and waits until the choice is saved (the switch saves it in the background; a page
   * loaded before the save answers still reads English from the profile).
   */
  async function chooseGerman(page: Page): Promise<void> {
    const select = page.getByLabel('Language');
    if ((await select.inputValue()) === 'de') return;
    const saved = page.waitForResponse(
      (response) => response.url().endsWith('/users/me') && response.request().method() === 'PATCH',
    );
    await select.selectOption('de');
    expect((await saved).status()).toBe(200);
  }

  /** Until the page's heading is there and nothing says "Loading…" any more. */
  async function settled(page: Page): Promise<void> {
    await page.locator('main h1').first().waitFor();
    await page.waitForFunction(
      () => !/Loading…|Lädt…/.test((globalThis as unknown as PageGlobals).document.body.innerText),
    );
  }

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    ({ spaceId, agentId } = await spaceWithAgent(api.url, uniqueName('Harbour'), uniqueName('Pilot')));
    for (const [key, person] of Object.entries(people)) {
      const invited = await invitedPerson(api.url, person.email, {
        name: person.name,
        role: key === 'admin' ? 'admin' : 'member',
      });
      person.id = invited.userId;
      person.cookie = invited.cookie;
    }
    await addMembers(api.url, spaceId, [
      [people.admin.id, 'owner'],
      [people.editor.id, 'editor'],
      [people.member.id, 'member'],
    ]);
    // A conversation long enough to push a composer that does not stay in view off a phone's screen.
    for (let turn = 0; turn < 6; turn++) {
      const answer = await fetch(`${api.url}${CORE}/llm/${agentId}/conversation`, {
        method: 'POST',
        headers: { cookie: people.admin.cookie, origin: api.url, 'content-type': 'application/json' },
        body: JSON.stringify({
          message: `Question ${turn}: what does a harbour pilot do on a foggy night, step by step?`,
          ...(conversationId ? { conversationId } : {}),
        }),
      });
      expect(answer.ok).toBe(true);
      conversationId = ((await answer.json()) as { conversationId: string }).conversationId;
    }
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
    await upstream?.close();
  });

  const pages = () => [
    { name: 'chat', path: `/space/${spaceId}/agent/${agentId}?c=${conversationId}` },
    { name: 'members', path: `/space/${spaceId}/members` },
    { name: 'prompts', path: `/space/${spaceId}/prompts` },
    { name: 'agent-settings', path: `/agent/${agentId}/settings` },
    { name: 'memories', path: '/memories' },
    { name: 'developer', path: '/developer' },
    { name: 'usage', path: '/usage' },
    { name: 'admin', path: '/admin' },
    { name: 'audit', path: '/audit' },
    { name: 'agent-history', path: `/agent/${agentId}/history` },
    { name: 'knowledge', path: '/knowledge' },
  ];

  it.each(THEMES)(
    'every page at 390, 768 and 1280 px in the %s theme: no horizontal scroll, 0 serious axe violations, the composer in view on a phone',
    async (theme) => {
      const signedOut = await pageOf(null);
      const page = await pageOf(people.admin.email);
      for (const [who, name, path] of [
        [signedOut, 'sign-in', '/'],
        // The mails' pages with a link that lost its token: the form, and the sentence that says so.
        [signedOut, 'invitation', '/invitations/accept'],
        [signedOut, 'password-reset', '/password-reset'],
        ...pages().map((p) => [page, p.name, p.path] as const),
      ] as const) {
        await emulateTheme(who, theme);
        for (const width of WIDTHS) {
          await who.setViewportSize({ width, height: 844 });
          await who.goto(`${api.url}${path}`);
          await settled(who);
          expect(await who.locator('html').getAttribute('data-theme')).toBe(theme);
          const overflow = await who.evaluate(
            () =>
              (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth -
              (globalThis as unknown as PageGlobals).innerWidth,
          );
          expect({ name, width, overflow }).toEqual({ name, width, overflow: 0 });
          expect({ name, width, violations: await seriousViolations(who) }).toEqual({
            name,
            width,
            violations: [],
          });
          if (name === 'chat' && width === 390) {
            const box = await who.getByLabel('Message', { exact: true }).boundingBox();
            expect(box).not.toBeNull();
            expect(box!.y).toBeGreaterThanOrEqual(0);
            expect(box!.y + box!.height).toBeLessThanOrEqual(844);
            await expect(who.getByRole('button', { name: 'Send' }).isVisible()).resolves.toBe(true);
            // What the phone shows, not the whole page: the composer over the end of the conversation.
            await who.screenshot({ path: join(ARTIFACTS, `quality-chat-390-screen-${theme}.png`) });
          }
          if (width !== 768) await screenshot(who, `quality-${name}-${width}-${theme}`);
        }
      }
    },
    300_000,
  );

  it('at 390 px the navigation is a menu: the button opens it, Esc closes it and gives the focus back', async () => {
    const page = await pageOf(people.admin.email, 390);
    await page.goto(`${api.url}/memories`);
    await settled(page);
    const menu = page.getByRole('button', { name: 'Menu' });
    const usageLink = page.getByRole('navigation').getByRole('link', { name: 'Usage' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await usageLink.isVisible()).toBe(false);
    // The keyboard's way: the skip link first, then the brand, then the menu button.
    await page.keyboard.press('Tab');
    await expect(
      page
        .getByRole('link', { name: 'Skip to content' })
        .evaluate((e) => e === (globalThis as unknown as PageGlobals).document.activeElement),
    ).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(
      menu.evaluate((e) => e === (globalThis as unknown as PageGlobals).document.activeElement),
    ).resolves.toBe(true);
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await usageLink.waitFor({ state: 'visible' });
    await screenshot(page, 'quality-menu-open-390');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await usageLink.waitFor({ state: 'hidden' });
    await expect(
      menu.evaluate((e) => e === (globalThis as unknown as PageGlobals).document.activeElement),
    ).resolves.toBe(true);
    // Following a link closes it too.
    await menu.click();
    await usageLink.click();
    await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
  });

  it('the theme toggle overrides the system and survives a reload', async () => {
    const page = await pageOf(people.admin.email);
    await emulateTheme(page, 'light');
    await page.goto(`${api.url}/usage`);
    await settled(page);
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    const background = () =>
      page.evaluate(
        () =>
          (globalThis as unknown as PageGlobals).getComputedStyle(
            (globalThis as unknown as PageGlobals).document.documentElement,
          ).backgroundColor,
      );
    const light = await background();
    await toggle.click();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const dark = await background();
    expect(dark).not.toBe(light);
    await page.reload();
    await settled(page);
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await background()).toBe(dark);
    expect(await seriousViolations(page)).toEqual([]);
    // Back to light by the same button, also kept.
    await page.getByRole('button', { name: 'Dark theme' }).click();
    await page.reload();
    await settled(page);
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
  });

  it("Tab reaches the chat's main actions, each with a visible focus ring", async () => {
    const page = await pageOf(people.admin.email);
    await page.goto(`${api.url}/space/${spaceId}/agent/${agentId}?c=${conversationId}`);
    await settled(page);
    const reached = new Set<string>();
    for (let step = 0; step < 80 && !reached.has('Send'); step++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = (globalThis as unknown as PageGlobals).document.activeElement as {
          readonly tagName: string;
          readonly textContent: string | null;
          getAttribute(name: string): string | null;
        };
        return {
          name: element.tagName === 'TEXTAREA' ? 'textarea' : (element.textContent ?? '').trim(),
          outline: (globalThis as unknown as PageGlobals).getComputedStyle(element).outlineStyle,
        };
      });
      reached.add(focused.name);
      expect({ focused: focused.name, outline: focused.outline }).toEqual({
        focused: focused.name,
        outline: 'solid',
      });
    }
    for (const action of ['Skip to content', 'New conversation', 'Settings', 'textarea', 'Prompts', 'Send'])
      expect(reached).toContain(action);
  });

  it('German: a plain member reads the settings with the reason; a refused save is a German sentence', async () => {
    const member = await pageOf(people.member.email);
    await chooseGerman(member);
    await member.goto(`${api.url}/agent/${agentId}/settings`);
    await settled(member);
    await member
      .getByRole('note')
      .filter({ hasText: 'Du kannst diese Einstellungen lesen, aber nicht ändern' })
      .waitFor();
    expect(await member.getByRole('button', { name: 'Speichern' }).count()).toBe(0);
    expect(await member.getByRole('button', { name: 'Hochladen' }).count()).toBe(0);
    expect(await member.getByLabel(/^Fenstertitel der Einbettung/).isEditable()).toBe(false);
    await screenshot(member, 'quality-settings-read-only-de');

    // The editor opens the form; meanwhile an owner makes them a plain member; their save is refused in German.
    const editor = await pageOf(people.editor.email);
    await chooseGerman(editor);
    await editor.goto(`${api.url}/agent/${agentId}/settings`);
    await settled(editor);
    const save = editor.getByRole('button', { name: 'Speichern' });
    await save.waitFor();
    const demoted = await admin().patch(`${CORE}/spaces/${spaceId}/members/${people.editor.id}`, {
      role: 'member',
    });
    expect(demoted.status).toBe(200);
    // The form sends what changed: a new window title.
    await editor.getByLabel(/^Fenstertitel der Einbettung/).fill('Hilfe');
    await save.click();
    const alert = editor.getByRole('alert').filter({
      hasText: 'Dafür braucht es die Rolle Bearbeiter oder Eigentümer in diesem Space (oder einen Admin).',
    });
    await alert.waitFor();
    expect(await alert.innerText()).not.toMatch(/denied|may not|needs|error/i);
    expect(await seriousViolations(editor)).toEqual([]);
    await screenshot(editor, 'quality-refused-de');
  });
});
