// Benchmark 8: the web app. The chat page's JavaScript gzipped (the scripts and module preloads of dist/web/index.html;
// goal ≤ 150 KB); the time to a usable chat page in Chromium: from navigation start to the Agent's name and the
// message box on a new conversation, median of 5 loads (goal ≤ 1 s); the first render of a 200-message conversation:
// from navigation start to its last message in the page (the list renders the rows on screen, and opens at the end),
// median of 5 loads (goal ≤ 1 s); and the first streamed delta: from its bytes reaching the page to the frame that
// paints its text, p50 and max of 10 questions to an Agent whose model (the fake upstream, its own process) streams a
// word every 20 ms (goal ≤ 50 ms; first-delta.ts says how it is measured). The conversation is a signed-in
// person's, built through the API with the offline model (100 turns). Skipped, with the reason printed, without
// /usr/bin/chromium.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { BENCH_ADMIN_API_KEY, spawnApi, stop } from './api-startup.js';
import { FIRST_DELTA_PROBE, firstDeltaTimes } from './first-delta.js';
import { startUpstream } from './gateway.js';
import { log, makeTempDir, median, type MetricRow } from './util.js';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'a long enough passphrase';

/** What the page function reads (the bench compiles without the DOM types). */
interface PageGlobals {
  readonly document: {
    querySelectorAll(selector: string): { readonly length: number };
    querySelector(selector: string): { readonly textContent: string | null } | null;
  };
}

export interface WebBenchOptions {
  readonly mainPath: string;
  /** dist/bench/fake-upstream-server.js */
  readonly upstreamPath: string;
  readonly webDir: string;
  readonly readyTimeoutMs: number;
  readonly messages: number;
  readonly loads: number;
  /** Questions asked for the first-delta measure. */
  readonly deltas: number;
}

/** Gzipped bytes of the JavaScript the chat page loads (its entry and the chunks it preloads). */
export function chatPageScriptBytes(webDir: string): { bytes: number; files: string[] } {
  const html = readFileSync(join(webDir, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const bytes = files.reduce(
    (sum, file) => sum + gzipSync(readFileSync(join(webDir, file)), { level: 9 }).length,
    0,
  );
  return { bytes, files };
}

/** The times `load` measures, one extra load first: it warms the browser's caches and is not counted. */
async function timedLoads(loads: number, load: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; n <= loads; n++) {
    const ms = await load();
    if (n > 0) times.push(ms);
  }
  return times;
}

export async function benchWeb(options: WebBenchOptions): Promise<{ rows: MetricRow[]; details: unknown }> {
  const size = chatPageScriptBytes(options.webDir);
  const rows: MetricRow[] = [
    {
      metric: 'web: chat page JS (gzipped)',
      value: size.bytes / 1024,
      unit: 'KB',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 150 },
    },
  ];
  if (!existsSync(CHROMIUM)) {
    log(`web: SKIP the render benchmark: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
    return { rows, details: { size } };
  }
  const dir = makeTempDir('bench-web');
  // The first-delta Agent's model streams as a remote one does: a word every 20 ms, so the first delta comes alone
  // (the offline model's whole answer comes in one chunk with the turn's end, and the page would render both).
  const streaming = await startUpstream(options.upstreamPath, {
    reply: 'Streaming answers arrive **word by word**:\n\n- the first delta\n- then the rest, until the end.',
    chunkDelayMs: 20,
  });
  const modelsFile = join(dir.path, 'models.yaml');
  writeFileSync(
    modelsFile,
    [
      'providers:',
      `  streaming: { baseUrl: http://127.0.0.1:${streaming.port}/v1 }`,
      'models:',
      '  - { key: fake-streaming, modelId: fake-model, provider: streaming, kind: chat, pricing: { input: 1, output: 2 } }',
      '',
    ].join('\n'),
  );
  const api = await spawnApi(
    options.mainPath,
    join(dir.path, 'data'),
    options.readyTimeoutMs,
    { MODELS_FILE: modelsFile },
    true,
  );
  const base = `http://127.0.0.1:${api.port}`;
  const core = `${base}/api/v1/core`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const admin = { 'x-api-key': BENCH_ADMIN_API_KEY, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, headers: Record<string, string>) => {
      const response = await fetch(`${core}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return { body: (await response.json()) as Record<string, unknown>, headers: response.headers };
    };
    const space = await post('/spaces', { name: 'Bench web' }, admin);
    const agent = await post('/agents', { spaceId: space.body.id, name: 'Bench chat' }, admin);
    const invitation = await post('/invitations', { email: 'bench@example.com', role: 'member' }, admin);
    const token = decodeURIComponent(String(invitation.body.link).split('#token=')[1] ?? '');
    const accepted = await post(
      '/invitations/accept',
      { token, name: 'Bench', password: PASSWORD },
      { 'content-type': 'application/json' },
    );
    const cookie = (accepted.headers.get('set-cookie') ?? '').split(';')[0]!;
    // The person uses the Space's Agent as its member (Space roles decide what a session reaches).
    await post(
      `/spaces/${String(space.body.id)}/members`,
      { userId: accepted.body.id, role: 'member' },
      admin,
    );
    const session = { cookie, origin: base, 'content-type': 'application/json' };
    let conversationId: string | undefined;
    for (let turn = 0; turn < options.messages / 2; turn++) {
      const answer = await post(
        `/llm/${String(agent.body.id)}/conversation`,
        {
          message: `Question ${turn}: tell me about **item ${turn}** with a list:\n\n- one\n- two\n\n\`code ${turn}\``,
          ...(conversationId ? { conversationId } : {}),
        },
        session,
      );
      conversationId = String(answer.body.conversationId);
    }
    const context = await browser.newContext();
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: base }]);
    const page = await context.newPage();
    const usableMs = await timedLoads(options.loads, async () => {
      await page.goto(`${base}/space/${String(space.body.id)}/agent/${String(agent.body.id)}`);
      await page.waitForFunction(
        (name: string) => {
          const { document } = globalThis as unknown as PageGlobals;
          return (
            document.querySelector('#agent-title')?.textContent === name &&
            !!document.querySelector('.composer textarea')
          );
        },
        String(agent.body.name),
        { timeout: 60_000 },
      );
      return page.evaluate(() => performance.now());
    });
    rows.push({
      metric: 'web: time to a usable chat page',
      value: median(usableMs),
      unit: 'ms',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 1000 },
    });
    const url = `${base}/space/${String(space.body.id)}/agent/${String(agent.body.id)}?c=${conversationId}`;
    const times = await timedLoads(options.loads, async () => {
      await page.goto(url);
      // A function, not a string: the page's CSP forbids eval.
      await page.waitForFunction(
        (n: number) =>
          !!(globalThis as unknown as PageGlobals).document.querySelector(`li.message[aria-posinset="${n}"]`),
        options.messages,
        { timeout: 60_000 },
      );
      return page.evaluate(() => performance.now());
    });
    rows.push({
      metric: `web: first render of ${options.messages} messages`,
      value: median(times),
      unit: 'ms',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '<=', target: 1000 },
    });

    const streamer = await post(
      '/agents',
      { spaceId: space.body.id, name: 'Bench streaming', model: 'fake-streaming' },
      admin,
    );
    const probed = await context.newPage();
    await probed.addInitScript(FIRST_DELTA_PROBE);
    const deltas = await firstDeltaTimes(
      probed,
      `${base}/space/${String(space.body.id)}/agent/${String(streamer.body.id)}`,
      options.deltas,
    );
    const painted = deltas.map((d) => d.paintedMs);
    for (const [label, value] of [
      ['p50', median(painted)],
      ['max', Math.max(...painted)],
    ] as const)
      rows.push({
        metric: `web: first delta, arrival to painted, ${label}`,
        value,
        unit: 'ms',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: 50 },
      });
    return { rows, details: { size, usableMs, renderMs: times, firstDelta: deltas } };
  } finally {
    await browser.close();
    await stop(api.child);
    await stop(streaming.child);
    dir.remove();
  }
}
