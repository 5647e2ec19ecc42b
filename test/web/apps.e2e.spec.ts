// The Apps page in a real Chromium against the real api: an admin registers an App by its URL (a small App on
// loopback answering /meta), sees its views and tools, keeps its token shown once, enables it for one Agent, rotates
// the token (the new one works on the bridge, shown once), registers an unreachable App and reads why, and deletes
// it after confirming. A person who is not admin has no Apps page. Screenshots at 1280 and 390 px; axe-core: 0
// serious or critical violations.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  invitedPerson,
  launch,
  screenshot,
  seriousViolations,
  SignedInPages,
  spaceWithAgent,
  startApiWithFakeChat,
} from './browser.js';

const run = chromiumOrSkip('Apps page (browser)');
const describeBrowser = run ? describe : describe.skip;

const META = {
  id: 'notes',
  name: 'Notes',
  standalone: false,
  views: [{ id: 'board', title: 'Board', path: '/user/board' }],
  tools: [{ name: 'add_note', description: 'Adds a note' }],
};

interface AppBody {
  readonly id: string;
  readonly name: string;
  readonly enablement: { readonly kind: string; readonly agentIds?: readonly string[] };
}

describeBrowser('the Apps page in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  let appServer: Server;
  let appUrl: string;
  const pages = new SignedInPages(() => browser);
  let agentId: string;
  let agentName: string;
  const stamp = Date.now();
  const adminPerson = { email: `ari-${stamp}@example.com` };
  const person = { email: `pat-${stamp}@example.com` };
  const apps = async () =>
    (await client(api.url, ADMIN_KEY).get<{ data: AppBody[] }>(`${CORE}/apps?limit=200`)).body.data;

  const pageOf = (email: string, width = 1280): Promise<Page> =>
    pages.of(api.url, email, { width, clipboard: true });

  beforeAll(async () => {
    builtOrFail();
    appServer = createServer((request, response) => {
      if (request.url === '/meta')
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(META));
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    upstream = await startFakeUpstream();
    api = await startApiWithFakeChat(upstream);
    agentName = uniqueName('Clerk');
    ({ agentId } = await spaceWithAgent(api.url, uniqueName('Office'), agentName));
    await invitedPerson(api.url, adminPerson.email, { name: 'Ari Admin', role: 'admin' });
    await invitedPerson(api.url, person.email, { name: 'Pat Person', role: 'member' });
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await pages.close(api, upstream);
    appServer?.close();
  });

  it('an admin registers an App, keeps its token, enables it for an Agent, rotates the token and deletes it', async () => {
    const page = await pageOf(adminPerson.email);
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    await page.getByText('No Apps are registered yet.').waitFor();

    const form = page.locator('form.app-register');
    await form.getByLabel('Name').fill('Notes');
    await form.getByLabel('URL', { exact: true }).fill(appUrl);
    await form.getByRole('button', { name: 'Register' }).click();
    // The token once, with a copy button that puts it on the clipboard.
    const secret = page.getByRole('status').filter({ hasText: 'The bearer token of Notes, shown only now' });
    await secret.waitFor();
    const token = await secret.locator('code').innerText();
    expect(token).toMatch(/^apt_/);
    await secret.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    const card = page.locator('li.app-card').filter({ hasText: 'Notes' });
    await card.getByText('Views: Board. Tools: add_note.').waitFor();
    await screenshot(page, 'apps-registered-1280');
    expect(await seriousViolations(page)).toEqual([]);
    await secret.getByRole('button', { name: 'I have kept it' }).click();
    await secret.waitFor({ state: 'detached' });
    expect(await page.getByText(token).count()).toBe(0);

    // Enabled for one Agent.
    await card.getByLabel(agentName).check();
    await card.getByRole('button', { name: 'Save the Agents of Notes' }).click();
    await waitUntil(async () => (await apps())[0]?.enablement.agentIds?.includes(agentId) === true);

    // A new token: the old one stops, the new one is shown once and works on the bridge.
    await card.getByRole('button', { name: 'New token for Notes' }).click();
    const rotated = await card.getByRole('status').locator('code').innerText();
    expect(rotated).not.toBe(token);
    const bridge = (bearer: string) =>
      fetch(`${api.url}/api/v1/bridge/agents/${agentId}/llm/models`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    expect((await bridge(rotated)).status).toBe(200);
    expect((await bridge(token)).status).toBe(401);

    // An App whose /meta cannot be read says why.
    await form.getByLabel('Name').fill('Gone');
    await form.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:9');
    await form.getByRole('button', { name: 'Register' }).click();
    await page
      .locator('li.app-card')
      .filter({ hasText: 'Gone' })
      .getByText(/Last error: .*\/meta/)
      .waitFor();

    // Deleting asks first.
    await card.getByRole('button', { name: 'Delete Notes' }).click();
    await page
      .getByRole('dialog', { name: 'Delete Notes?' })
      .getByRole('button', { name: 'Delete Notes' })
      .click();
    await waitUntil(async () => !(await apps()).some((app) => app.name === 'Notes'));
    await screenshot(page, 'apps-after-delete-1280');
  });

  it('shows the Apps page at 390 px, and no Apps page to a person who is not admin', async () => {
    const narrow = await pageOf(adminPerson.email, 390);
    await narrow.goto(`${api.url}/apps`);
    await narrow.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    await narrow.locator('li.app-card').filter({ hasText: 'Gone' }).waitFor();
    await screenshot(narrow, 'apps-390');
    expect(await narrow.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    expect(await seriousViolations(narrow)).toEqual([]);

    const member = await pageOf(person.email);
    expect(await member.getByRole('link', { name: 'Apps', exact: true }).count()).toBe(0);
    await member.goto(`${api.url}/apps`);
    await member.getByRole('heading', { name: 'Not found' }).waitFor();
  });
});
