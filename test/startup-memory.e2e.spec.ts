// The api's idle memory after start-up (the built api in its own process, as `npm start` runs it). Loading the api
// used to double V8's young generation to its 128 MB maximum, which stayed resident for ~10 s of idling (idle RSS
// 246 MB against 124 MB once V8 reduced it); main.ts now holds the young generation at its initial size until ready
// (young-generation.ts). The proof is the size of the young generation, read from /metrics, not a timing.
import { readFileSync } from 'node:fs';
import { apiNodeFlags } from '../bench/node-flags.js';
import { ADMIN_KEY, tempDataDir } from './support/api.js';
import { spawnApi, stopProcess, type ApiProcess } from './support/process.js';

const MB = 1024 * 1024;

/** `nodejs_heap_space_size_total_bytes{space}` (prom-client's default metrics) from /metrics. */
const heapSpaceBytes = async (url: string, space: string): Promise<number> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`nodejs_heap_space_size_total_bytes{space="${space}"}`));
  if (!line) throw new Error(`no heap size of space ${space} in /metrics:\n${text.slice(0, 2000)}`);
  return Number(line.split(' ').at(-1));
};

/** `nodejs_heap_space_size_used_bytes{space}` from /metrics. */
const heapSpaceUsedBytes = async (url: string, space: string): Promise<number> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`nodejs_heap_space_size_used_bytes{space="${space}"}`));
  if (!line) throw new Error(`no used heap of space ${space} in /metrics`);
  return Number(line.split(' ').at(-1));
};

describe('start-up memory (e2e, separate process)', () => {
  let api: ApiProcess;
  beforeAll(async () => {
    // The burst below is 24 × 8.4 MB read by this test's own process: on a loaded machine a stream can wait longer than
    // the default 30 s stall timeout for its turn to be read (a clean-clone CI run took ≈ 45 s and had one cut). Stalls
    // are not what this file tests (stalled-streams.e2e.spec.ts does).
    api = await spawnApi(
      { DATA_DIR: tempDataDir(), ADMIN_API_KEY: ADMIN_KEY, STREAM_STALL_TIMEOUT_MS: '600000' },
      60_000,
    );
  }, 60_000);
  afterAll(async () => {
    if (api) await stopProcess(api.child);
  });

  it('is ready with its young generation at its initial size, not grown to the maximum by loading', async () => {
    const young = await heapSpaceBytes(api.url, 'new');
    // Initial: 2 × 1 MB semi-spaces (plus V8's page rounding); grown by start-up it was 128 MB.
    expect(young).toBeGreaterThan(0);
    expect(young).toBeLessThanOrEqual(16 * MB);
  });

  it('gives the start-up garbage of its old generation back soon after ready, not after the memory reducer (~20 s)', async () => {
    // Without the collection after start-up the old generation stayed ~1.6 × its live size (74 MB held for 47 MB
    // used) until V8's memory reducer ran 15–20 s later. Polled for up to 8 s (the collection runs 1 s after ready).
    const slack = async () =>
      (await heapSpaceBytes(api.url, 'old')) / (await heapSpaceUsedBytes(api.url, 'old'));
    let ratio = await slack();
    for (let i = 0; i < 40 && ratio > 1.25; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      ratio = await slack();
    }
    expect(ratio).toBeLessThanOrEqual(1.25);
  }, 20_000);

  it('answers as before once ready (the api was loaded whole, not half)', async () => {
    const response = await fetch(`${api.url}/api/v1/core/users/me`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(response.status).toBe(200);
  });

  it('keeps its young generation within 2 × 16 MB semi-spaces under a burst (V8 grows it to 64–128 MB by default)', async () => {
    // `--max-semi-space-size=16` (package.json's start script, the Dockerfile): a burst of big requests doubles the
    // young generation up to its maximum, and on Node 24 that is 2 × 64 MB; at 16 MB the saturated gateway spent
    // 383–522 µs of CPU per request instead of 964–1,040 and 50 stalled readers held +100 MB instead of +330
    // (docs/decisions.md, "A small young generation"). 24 concurrent streamed 200,000-character completions of the
    // offline model, read to the end: each delta allocates in the api's own thread (without the flag the young generation reads 64 MB after them).
    const content = 'burst '.repeat(200_000 / 6);
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        fetch(`${api.url}/api/compat/v1/chat/completions`, {
          method: 'POST',
          headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'offline-chat',
            stream: true,
            messages: [{ role: 'user', content }],
          }),
        }).then(async (r) => ((await r.text()).endsWith('data: [DONE]\n\n') ? r.status : 0)),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 24 }, () => 200));
    // 32 MB with the flag (what V8 reports for the space at its maximum), 64–128 MB without.
    expect(await heapSpaceBytes(api.url, 'new')).toBeLessThanOrEqual(40 * MB);
  }, 180_000);
});

describe('the api process Node flags', () => {
  it("are the same in package.json's start script (what the bench and tests use) and the Dockerfile", () => {
    const flags = apiNodeFlags();
    expect(flags).toContain('--max-semi-space-size=16');
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync('docker/Dockerfile', 'utf8'))?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(['node', ...flags, 'dist/apps/api/src/main.js']);
  });
});
