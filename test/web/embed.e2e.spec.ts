// The embed in a real Chromium: a host page served from another loopback origin (127.0.0.2) embeds public Agents as
// an iframe and as a floating bubble. Listed in the Agent's Allowed URLs, the visitor chats and gets a streamed
// answer; not listed, or with an empty list, the browser refuses the frame (frame-ancestors; also without a
// Referer, so the CSP alone decides); a non-public Agent answers 403 `Agent is not public` (page and API); Embed
// session minutes > 0 resume the conversation after a reload, 0 does not; the per-visitor limit answers 429 in the
// widget; a visitor session reaches only its Agent's chat and its own conversation; visitor usage is the Agent's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '#testing/fake-openai-upstream';
import { waitUntil } from '#testing/fixtures';
import { ADMIN_KEY, client, CORE, uniqueName, type TestApi } from '../support/api.js';
import {
  builtOrFail,
  chromiumOrSkip,
  launch,
  screenshot,
  seriousViolations,
  startApiWithFakeChat,
} from './browser.js';

const run = chromiumOrSkip('embed (browser)');
const describeBrowser = run ? describe : describe.skip;

const VISITOR_LIMIT = 3;

describeBrowser('embed in Chromium (e2e)', () => {
  let upstream: FakeUpstream;
  let api: TestApi;
  let browser: Browser;
  let host: Server;
  let hostOrigin: string;
  const agents: Record<string, string> = {};

  const createAgent = async (key: string, settings: Record<string, unknown>) => {
    const admin = client(api.url, ADMIN_KEY);
    const space = await admin.post<{ id: string }>(`${CORE}/spaces`, { name: uniqueName('Embeds') });
    const agent = await admin.post<{ id: string }>(`${CORE}/agents`, {
      spaceId: space.body.id,
      name: uniqueName(`Agent ${key}`),
      model: 'fake-chat',
      ...settings,
    });
    expect(agent.status).toBe(201);
    agents[key] = agent.body.id;
  };

  beforeAll(async () => {
    builtOrFail();
    upstream = await startFakeUpstream({
      reply: 'Hello visitor, this answer streams word by word.',
      chunkDelayMs: 40,
    });
    api = await startApiWithFakeChat(upstream);
    // The host site: another origin (127.0.0.2), serving pages that embed an Agent.
    host = createServer((request, response) => {
      const [, kind, agentId] = (request.url ?? '').split('/');
      const embed = `${api.url}/embed/${agentId}`;
      const body =
        kind === 'iframe'
          ? `<iframe id="chat" src="${embed}" title="Chat" width="400" height="500"></iframe>`
          : kind === 'iframe-no-referrer'
            ? `<iframe id="chat" src="${embed}" title="Chat" referrerpolicy="no-referrer" width="400" height="500"></iframe>`
            : kind === 'bubble'
              ? `<script src="${api.url}/embed/bubble.js" data-agent="${agentId}" defer></script>`
              : kind === 'widget'
                ? `<div id="here"></div><script src="${api.url}/embed/widget.js" data-agent="${agentId}" data-target="#here" defer></script>`
                : '';
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><html lang="en"><head><title>Host</title></head><body><h1>Host site</h1>${body}</body></html>`,
      );
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.2', resolve));
    hostOrigin = `http://127.0.0.2:${(host.address() as AddressInfo).port}`;
    await createAgent('listed', {
      isPublic: true,
      allowedUrls: [hostOrigin],
      embedSessionMinutes: 30,
      embedWindowTitle: 'Ask the Guide',
      // The Agent's own limit (the instance default is 10 a minute).
      embedLimits: { visitorMessagesPerMinute: VISITOR_LIMIT },
    });
    await createAgent('notKept', { isPublic: true, allowedUrls: [hostOrigin], embedSessionMinutes: 0 });
    await createAgent('unlisted', { isPublic: true, allowedUrls: ['http://127.0.0.3:1'] });
    await createAgent('emptyList', { isPublic: true, allowedUrls: [] });
    await createAgent('private', { isPublic: false, allowedUrls: [hostOrigin] });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await api?.close();
    await upstream?.close();
  });

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => process.stdout.write(`page error: ${error.message}\n`));
    return page;
  };

  /** The embed frame of the page, once its chat has rendered. */
  const embedFrame = async (page: Page): Promise<Frame> => {
    let found: Frame | undefined;
    await waitUntil(async () => {
      found = page.frames().find((frame) => frame.url().startsWith(`${api.url}/embed/`));
      return found !== undefined && (await found.locator('form.composer').count()) > 0;
    }, 15_000);
    return found!;
  };

  const chat = async (frame: Frame, text: string) => {
    await frame.getByLabel('Message').fill(text);
    await frame.getByRole('button', { name: 'Send' }).click();
  };

  it('the embed page carries frame-ancestors with the Allowed URLs; an empty list allows only the instance', async () => {
    const listed = await fetch(`${api.url}/embed/${agents.listed}`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-security-policy')).toContain(`frame-ancestors 'self' ${hostOrigin}`);
    await listed.text();
    const empty = await fetch(`${api.url}/embed/${agents.emptyList}`);
    expect(empty.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'(;|$)/);
    await empty.text();
  });

  it('a listed host embeds the Agent in an iframe: the visitor gets a streamed answer (axe: 0 serious)', async () => {
    const page = await newPage();
    await page.goto(`${hostOrigin}/iframe/${agents.listed}`);
    const frame = await embedFrame(page);
    const turn = page.waitForResponse((r) => r.url().endsWith(`/llm/${agents.listed}/conversation`));
    await chat(frame, 'Hello there');
    expect((await turn).headers()['content-type']).toContain('text/event-stream');
    await frame.locator('li.message.assistant', { hasText: 'Hello visitor' }).waitFor();
    await frame.locator('li.message.assistant', { hasText: 'word by word.' }).waitFor();
    await screenshot(page, 'embed-iframe');
    // The visitor's turn was streamed (SSE), its usage is the Agent's.
    const usageCalls = async () =>
      (
        await client(api.url, ADMIN_KEY).get<{ totals: { calls: number } }>(
          `${CORE}/usage?dimension=agent&subject=${agents.listed}`,
        )
      ).body.totals.calls;
    await waitUntil(async () => (await usageCalls()) >= 1, 15_000);
    const direct = await newPage();
    await direct.goto(`${api.url}/embed/${agents.listed}`);
    await direct.locator('form.composer').waitFor();
    expect(await seriousViolations(direct)).toEqual([]);
    await direct.context().close();
    await page.context().close();
  });

  it('a listed host embeds the Agent as a floating bubble whose header shows the Embed window title', async () => {
    const page = await newPage();
    await page.goto(`${hostOrigin}/bubble/${agents.listed}`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const frame = await embedFrame(page);
    await frame.getByRole('heading', { name: 'Ask the Guide' }).waitFor();
    await chat(frame, 'Hi from the bubble');
    await frame.locator('li.message.assistant', { hasText: 'word by word.' }).waitFor();
    await screenshot(page, 'embed-bubble');
    // The title is the bubble's only: the iframe shows none.
    const plain = await newPage();
    await plain.goto(`${hostOrigin}/iframe/${agents.listed}`);
    const plainFrame = await embedFrame(plain);
    expect(await plainFrame.getByText('Ask the Guide').count()).toBe(0);
    await plain.context().close();
    await page.context().close();
  });

  it('the browser refuses the frame when the host is not listed, and when the list is empty', async () => {
    for (const agent of [agents.unlisted!, agents.emptyList!])
      for (const kind of ['iframe', 'iframe-no-referrer']) {
        const page = await newPage();
        const refused = page.waitForEvent('console', {
          predicate: (message) => message.text().includes('frame-ancestors'),
          timeout: 10_000,
        });
        await page.goto(`${hostOrigin}/${kind}/${agent}`);
        if (kind === 'iframe-no-referrer') await refused;
        else await page.waitForLoadState('load');
        const frame = page.frames().find((f) => f !== page.mainFrame());
        const rendered = frame
          ? await frame
              .locator('form.composer')
              .count()
              .catch(() => 0)
          : 0;
        expect(rendered).toBe(0);
        await screenshot(page, `embed-refused-${kind}-${agent === agents.emptyList ? 'empty' : 'unlisted'}`);
        await page.context().close();
      }
  });

  it('a non-public Agent answers 403 `Agent is not public`, page and API', async () => {
    const page = await newPage();
    const response = await page.goto(`${api.url}/embed/${agents.private}`);
    expect(response!.status()).toBe(403);
    await page.getByText('Agent is not public').first().waitFor();
    await page.context().close();
    const session = await client(api.url, null).post<{ error: { message: string } }>(
      `/api/v1/embed/${agents.private}/session`,
      {},
    );
    expect(session.status).toBe(403);
    expect(session.body.error.message).toBe('Agent is not public');
  });

  it('Embed session minutes > 0: a reload resumes the conversation; 0: nothing is kept', async () => {
    for (const [agent, resumes] of [
      [agents.listed!, true],
      [agents.notKept!, false],
    ] as const) {
      // The widget keeps the visit in the host page's sessionStorage when the browser blocks the frame's own
      // (third-party storage).
      const page = await newPage();
      await page.goto(`${hostOrigin}/widget/${agent}`);
      const frame = await embedFrame(page);
      await chat(frame, 'Remember this line');
      await frame.locator('li.message.assistant', { hasText: 'word by word.' }).waitFor();
      await page.reload();
      const again = await embedFrame(page);
      if (resumes) await again.locator('li.message.user', { hasText: 'Remember this line' }).waitFor();
      else {
        await again.locator('form.composer button[type="submit"]:not([disabled])').waitFor();
        expect(await again.locator('li.message').count()).toBe(0);
      }
      await page.context().close();
    }
  });

  it("the Agent's per-visitor limit answers 429 in the widget", async () => {
    const page = await newPage();
    await page.goto(`${hostOrigin}/widget/${agents.listed}`);
    const frame = await embedFrame(page);
    for (let i = 1; i <= VISITOR_LIMIT; i++) {
      await chat(frame, `Message ${i}`);
      await frame
        .locator('li.message.assistant', { hasText: 'word by word.' })
        .nth(i - 1)
        .waitFor();
    }
    await chat(frame, 'One too many');
    await frame.getByRole('alert').filter({ hasText: '429' }).waitFor();
    await screenshot(page, 'embed-429');
    await page.context().close();
  });

  it("the Agent's daily cost cap answers 429 to its visitors when a turn would pass it", async () => {
    await createAgent('capped', {
      isPublic: true,
      allowedUrls: [hostOrigin],
      embedLimits: { dailyCostUsd: 0.000001 },
    });
    const anonymous = client(api.url, null);
    const token = (await anonymous.post<{ token: string }>(`/api/v1/embed/${agents.capped}/session`, {})).body
      .token;
    const turn = await anonymous.post<{ error: { code: string } }>(
      `${CORE}/llm/${agents.capped}/conversation`,
      { message: 'A question that costs more than the cap allows.' },
      { 'x-embed-session': token },
    );
    expect(turn.status).toBe(429);
    expect(turn.body.error.code).toBe('usage_limit_exceeded');
  });

  it('a visitor session reaches only its Agent’s chat and its own conversation', async () => {
    const anonymous = client(api.url, null);
    const start = async (agent: string) =>
      (await anonymous.post<{ token: string }>(`/api/v1/embed/${agent}/session`, {})).body.token;
    const first = await start(agents.notKept!);
    const second = await start(agents.notKept!);
    const turn = await fetch(`${api.url}${CORE}/llm/${agents.notKept}/conversation`, {
      method: 'POST',
      headers: { 'x-embed-session': first, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'private words' }),
    });
    expect(turn.status).toBe(201);
    const { conversationId } = (await turn.json()) as { conversationId: string };
    const messages = (token: string) =>
      anonymous.get(`${CORE}/llm/${agents.notKept}/conversation/${conversationId}/messages`, {
        'x-embed-session': token,
      });
    expect((await messages(first)).status).toBe(200);
    expect((await messages(second)).status).toBe(404);
    // Another Agent, another route, a forged session.
    const other = await anonymous.post(
      `${CORE}/llm/${agents.listed}/conversation`,
      { message: 'hi' },
      {
        'x-embed-session': first,
      },
    );
    expect(other.status).toBe(403);
    const agent = await anonymous.get(`${CORE}/agents/${agents.notKept}`, { 'x-embed-session': first });
    expect(agent.status).toBe(403);
    const list = await anonymous.get(`${CORE}/llm/${agents.notKept}/conversation`, {
      'x-embed-session': first,
    });
    expect(list.status).toBe(403);
    const forged = await anonymous.post(
      `${CORE}/llm/${agents.notKept}/conversation`,
      { message: 'hi' },
      {
        'x-embed-session': `${first.split('.')[0]}.forged`,
      },
    );
    expect(forged.status).toBe(401);
  });
});
