// The API docs page (Swagger UI at /api/v1/core/docs) in a real Chromium: it works under its own CSP (no violation
// reported), a key pasted into "Authorize" is never stored (nothing of it in localStorage or sessionStorage,
// before or after a reload), and a page of another origin cannot frame it. Screenshots in test/web/artifacts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_KEY, CORE, startTestApi, type TestApi } from '../support/api.js';
import { chromiumOrSkip, launch, screenshot } from './browser.js';

const run = chromiumOrSkip('API docs (browser)');
const describeBrowser = run ? describe : describe.skip;

describeBrowser('the API docs page in Chromium (e2e)', () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    browser = await launch();
    page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const storage = () => page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));

  it('a key pasted into Authorize is not kept in the browser storage, before or after a reload', async () => {
    await page.goto(`${api.url}${CORE}/docs`);
    // Swagger UI renders the whole OpenAPI document first: on a loaded machine that takes longer than a click waits.
    await page.getByRole('button', { name: 'Authorize' }).first().click({ timeout: 60_000 });
    const dialog = page.locator('.modal-ux');
    // The x-api-key scheme's form; Swagger UI labels its "Authorize" button "Apply credentials".
    const form = dialog.locator('form', { hasText: 'x-api-key' });
    await form.locator('input').first().fill(ADMIN_KEY);
    await form.getByRole('button', { name: 'Apply credentials' }).click();
    await form.getByText('Logout').waitFor();
    await screenshot(page, 'api-docs-authorized');
    await dialog.locator('button.btn-done').first().click();
    expect(await storage()).not.toContain(ADMIN_KEY);
    await page.reload();
    await page.getByRole('button', { name: 'Authorize' }).first().waitFor({ timeout: 60_000 });
    expect(await storage()).not.toContain(ADMIN_KEY);
    expect(violations).toEqual([]);
    // Above jest's 30 s: the two renders of the whole document may each take up to the 60 s their waits allow.
  }, 150_000);

  it('a page of another origin cannot frame the docs page', async () => {
    const host: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>host</title><iframe src="${api.url}${CORE}/docs"></iframe>`);
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    try {
      const framed = await browser.newPage();
      await framed.goto(`http://127.0.0.1:${(host.address() as AddressInfo).port}/`);
      await framed.waitForLoadState('networkidle');
      const docsFrame = framed.frames().find((frame) => frame.url().includes('/docs'));
      // Blocked by frame-ancestors: the frame holds an error page, never the docs' content.
      const rendered = docsFrame ? await docsFrame.locator('#docs').count() : 0;
      expect(rendered).toBe(0);
      await framed.close();
    } finally {
      await new Promise((resolve) => host.close(resolve));
    }
  });
});
