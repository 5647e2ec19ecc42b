// The api's event loop under big turns (the built api in its own process, as `npm start` runs it): concurrent turns
// with 88 KB messages have their history work (compaction plan, history token counts) done in the offline worker pool,
// which /metrics counts by thread, while /health keeps answering; and incognito conversations are bounded by bytes per
// user with a clear 429. No wall-clock threshold: the proof that the loop was not tokenizing is where the work ran.
import { ADMIN_KEY, client, CORE, tempDataDir } from './support/api.js';
import { agentInNewSpace } from './support/scenario.js';
import { spawnApi, stopProcess, type ApiProcess } from './support/process.js';

const TURNS = 20;
const MESSAGE_CHARS = 88_000;
const WORDS = 'harbour lantern quarry meadow copper falcon orchard glacier tundra velvet saffron'.split(' ');

/** A message of `chars` characters of varied words and sentences (so it tokenizes as prose does). */
const message = (chars: number, seed: number): string => {
  let text = '';
  for (let i = seed; text.length < chars; i++)
    text += `${WORDS[(i * 7) % WORDS.length]}${i % 13 === 0 ? `. ${i} ` : ' '}`;
  return text.slice(0, chars);
};

/** `offline_pool_tasks{op,thread}` from /metrics. */
const poolTasks = async (url: string, op: string, thread: 'worker' | 'inline'): Promise<number> => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`offline_pool_tasks{op="${op}",thread="${thread}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

describe('event loop under big turns (e2e, separate process)', () => {
  let api: ApiProcess;
  beforeAll(async () => {
    api = await spawnApi({
      DATA_DIR: tempDataDir(),
      ADMIN_API_KEY: ADMIN_KEY,
      INCOGNITO_MAX_BYTES_PER_USER: String(1024 * 1024),
    });
  }, 60_000);
  afterAll(async () => {
    if (api) await stopProcess(api.child);
  });

  const agent = async (name: string): Promise<string> =>
    (await agentInNewSpace(client(api.url), { name }, `${name} ${Date.now()}`)).agentId;

  it('plans compaction and counts 88 KB histories in worker threads while /health answers', async () => {
    const http = client(api.url);
    const agentId = await agent('Big turns');
    const before = {
      worker: await poolTasks(api.url, 'planHistoryCompaction', 'worker'),
      inline: await poolTasks(api.url, 'planHistoryCompaction', 'inline'),
    };

    let sampling = true;
    const health: number[] = [];
    const sampler = (async () => {
      while (sampling) {
        health.push((await fetch(`${api.url}/health`)).status);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const replies = await Promise.all(
      Array.from({ length: TURNS }, (_, index) =>
        http.post<{ conversationId: string; message: { status: string } }>(
          `${CORE}/llm/${agentId}/conversation`,
          { message: message(MESSAGE_CHARS, index) },
        ),
      ),
    );
    sampling = false;
    await sampler;

    expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: TURNS }, () => 201));
    expect(replies.every((reply) => reply.body.message.status === 'complete')).toBe(true);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);
    // Every turn's compaction plan (over an 88 KB history) ran in a worker thread, none on the event loop.
    expect((await poolTasks(api.url, 'planHistoryCompaction', 'worker')) - before.worker).toBe(TURNS);
    expect((await poolTasks(api.url, 'planHistoryCompaction', 'inline')) - before.inline).toBe(0);
    // So did the offline model's answers over those prompts.
    expect(await poolTasks(api.url, 'chat', 'worker')).toBeGreaterThanOrEqual(TURNS);
    expect(await poolTasks(api.url, 'chat', 'inline')).toBe(0);
  }, 180_000);

  it("refuses an incognito turn past its user's share with 429 incognito_limit_exceeded, keeping nothing", async () => {
    const http = client(api.url);
    const agentId = await agent('Incognito cap');
    // 200,000 characters of each attachment's text are kept (the extracted text's bound): 1 MiB holds five.
    const file = Buffer.from(message(300_000, 3)).toString('base64');
    const send = (index: number) =>
      http.post<{ conversationId: string; error?: { code: string; message: string } }>(
        `${CORE}/llm/${agentId}/conversation`,
        {
          visibility: 'incognito',
          message: {
            content: `what does file ${index} say?`,
            attachments: [{ name: `notes-${index}.txt`, mimeType: 'text/plain', dataBase64: file }],
          },
        },
      );
    const statuses: number[] = [];
    const started: string[] = [];
    let refused: Awaited<ReturnType<typeof send>> | undefined;
    for (let index = 0; index < 8 && !refused; index++) {
      const reply = await send(index);
      statuses.push(reply.status);
      if (reply.status === 201) started.push(reply.body.conversationId);
      else refused = reply;
    }
    expect(statuses.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
    expect(refused?.status).toBe(429);
    expect(refused?.body.error).toMatchObject({ type: expect.any(String), code: 'incognito_limit_exceeded' });
    expect(refused?.body.error?.message).toMatch(/past the 1\.0 MB/);
    // The earlier conversations are untouched; deleting one gives its bytes back, and the next turn is taken.
    const first = await http.get(`${CORE}/llm/${agentId}/conversation/${started[0]}/messages`);
    expect(first.status).toBe(200);
    expect((await http.delete(`${CORE}/llm/${agentId}/conversation/${started[0]}`)).status).toBe(204);
    expect((await send(99)).status).toBe(201);
  }, 180_000);
});
