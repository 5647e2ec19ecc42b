// Browser tests' support: the Debian `chromium` driven by playwright-core (no browser download), axe-core run in the
// page, screenshots kept under test/web/artifacts (gitignored; CI keeps them as artifacts), and a person invited by
// the admin who signs in through the real page.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { FakeUpstream } from '#testing/fake-openai-upstream';
import { ADMIN_KEY, client, CORE, startTestApi, writeModelsFile, type TestApi } from '../support/api.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test', 'web', 'artifacts');

/** Whether the browser tests can run here; when not, the reason is printed and the suite's tests are skipped. */
export function chromiumOrSkip(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  process.stdout.write(
    `SKIP ${suite}: ${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run installs it)\n`,
  );
  return false;
}

export function builtOrFail(): void {
  if (!existsSync(join(process.cwd(), 'dist', 'web', 'index.html')))
    throw new Error('dist/web is missing: run `npm run build` before the browser tests');
}

/** The api with one chat model, `fake-chat`, that `upstream` (a fake OpenAI-compatible server) answers. */
export const startApiWithFakeChat = (upstream: FakeUpstream): Promise<TestApi> =>
  startTestApi({
    MODELS_FILE: writeModelsFile([
      'providers:',
      `  fake: { baseUrl: '${upstream.url}' }`,
      'models:',
      '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, contextWindow: 64000, pricing: { input: 1, output: 2 } }',
    ]),
  });

/** A Space named `spaceName` with an Agent named `agentName` on `fake-chat` (memory off), made by the admin's key. */
export async function spaceWithAgent(
  base: string,
  spaceName: string,
  agentName: string,
): Promise<{ spaceId: string; agentId: string }> {
  const admin = client(base, ADMIN_KEY);
  const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: spaceName });
  if (space.status !== 201) throw new Error(`space: ${space.status}`);
  const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
    spaceId: space.body.id,
    name: agentName,
    model: 'fake-chat',
    memoryEnabled: false,
  });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status}`);
  return { spaceId: space.body.id, agentId: agent.body.id };
}

/** The admin's key gives each user their role in the Space. */
export async function addMembers(
  base: string,
  spaceId: string,
  roles: readonly (readonly [userId: string, role: 'member' | 'editor' | 'owner'])[],
): Promise<void> {
  for (const [userId, role] of roles) {
    const added = await client(base, ADMIN_KEY).post(`${CORE}/spaces/${spaceId}/members`, { userId, role });
    if (added.status !== 201) throw new Error(`member ${userId}: ${added.status}`);
  }
}

export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });

/** The whole page, or only the screen (`fullPage: false`) where the page is taller than a picture can be. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: { target: unknown }[];
}

/** axe-core's serious and critical violations on the page as it is (run through the debugger: not subject to CSP). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  const violations = await page.evaluate(`(async () => {
    ${AXE_SOURCE}
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  })()`);
  return (violations as AxeViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Emulates the system's colour scheme and waits until the app's page follows it (it sets `data-theme` on a `change` of
 * its media query, a moment after): a check or a screenshot straight after could see the theme before. A page that is
 * not the app's (no `data-theme`), or one whose person picked a theme with the toggle, is not waited for.
 */
export async function emulateTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.waitForFunction((wanted) => {
    const page = globalThis as unknown as ThemeGlobals;
    const current = page.document.documentElement.dataset.theme;
    if (!current || current === wanted) return true;
    try {
      return page.localStorage.getItem('agent-platform.theme') !== null;
    } catch {
      return false; // storage denied (an opaque origin): the app follows the system
    }
  }, theme);
}

interface ThemeGlobals {
  readonly document: { readonly documentElement: { readonly dataset: { readonly theme?: string } } };
  readonly localStorage: { getItem(key: string): string | null };
}

/**
 * Expects the focused element's text or id to be `wanted`, waiting up to 5 s for it: the app moves focus in an effect,
 * a moment after the render that shows the element (on a busy machine, after the test has already looked).
 */
export async function expectFocus(
  page: Page,
  property: 'textContent' | 'id',
  wanted: string | RegExp,
): Promise<void> {
  const match =
    typeof wanted === 'string' ? { exact: wanted } : { source: wanted.source, flags: wanted.flags };
  await page
    .waitForFunction(
      ([name, { exact, source, flags }]) => {
        const element = (globalThis as unknown as FocusGlobals).document.activeElement;
        const value = element?.[name] ?? '';
        return source === undefined ? value === exact : new RegExp(source, flags).test(value);
      },
      [property, match as { exact?: string; source?: string; flags?: string }] as const,
      { timeout: 5_000 },
    )
    .catch(() => undefined); // the expectation below says what was focused instead
  const value = await page.evaluate(`document.activeElement?.${property} ?? ''`);
  if (typeof wanted === 'string') expect(value).toBe(wanted);
  else expect(value).toMatch(wanted);
}

interface FocusGlobals {
  readonly document: {
    readonly activeElement: { readonly textContent: string | null; readonly id: string } | null;
  };
}

/** Expects no serious or critical violation in the light theme nor the dark one; the page is left light. */
export async function noSeriousViolations(page: Page): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await emulateTheme(page, theme);
    expect({ theme, violations: await seriousViolations(page) }).toEqual({ theme, violations: [] });
  }
  await emulateTheme(page, 'light');
}

export const PASSWORD = 'a long enough passphrase';

/**
 * An admin invites `email`; the person accepts with PASSWORD (through the API: the mail's link is not the subject) and
 * is signed in: `cookie` is their session's `ap_session=…`.
 */
export async function invitedPerson(
  base: string,
  email: string,
  { role = 'member', name = 'Bo Berg' }: { role?: 'member' | 'admin'; name?: string } = {},
): Promise<{ userId: string; cookie: string }> {
  const admin = client(base, ADMIN_KEY);
  const invitation = await admin.post<{ link: string }>(`${CORE}/invitations`, { email, role });
  if (invitation.status !== 201) throw new Error(`invitation: ${invitation.status}`);
  const token = decodeURIComponent(invitation.body.link.split('#token=')[1] ?? '');
  const accepted = await client(base, null).post<{ id: string }>(`${CORE}/invitations/accept`, {
    token,
    name,
    password: PASSWORD,
  });
  if (accepted.status >= 300) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const cookie = /ap_session=[A-Za-z0-9_-]+/.exec(accepted.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error('accept: no session cookie');
  return { userId: accepted.body.id, cookie };
}

/** Signs in through the sign-in page. */
export async function signIn(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation').waitFor();
}

/**
 * The browser contexts of a suite: each page a person signed in (English, the width asked), all closed with the
 * browser, the api and the upstream when the suite ends.
 */
export class SignedInPages {
  private readonly contexts: BrowserContext[] = [];

  constructor(private readonly browser: () => Browser) {}

  async of(
    base: string,
    email: string,
    options: { width?: number; clipboard?: boolean } = {},
  ): Promise<Page> {
    const context = await this.browser().newContext({
      locale: 'en-US',
      viewport: { width: options.width ?? 1280, height: 900 },
    });
    if (options.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    this.contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(page, base, email);
    return page;
  }

  async close(...others: readonly ({ close(): Promise<unknown> } | undefined)[]): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser()?.close();
    for (const other of others) await other?.close();
  }
}
