// The pooled workers' heap limits (WORKER_LIMITS) hold the biggest tasks the routes accept: a compiled worker (dist/,
// built by `npm test`'s pretest) started with those limits counts and answers 1,000,000 characters of mixed, CJK and
// random text, and four 2,100,000-character message lists at once, with the same results as this thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WORKER_LIMITS } from './offline-pool.js';
import { runOfflineTask, type OfflineTask } from './offline-tasks.js';

const WORKER = fileURLToPath(
  new URL('../../../../../dist/libs/adapters/model-providers/src/offline/offline-worker.js', import.meta.url),
);

const million = (pieces: readonly string[]): string => {
  let text = '';
  for (let i = 0; text.length < 1_000_000; i++) text += `${pieces[(i * 7919) % pieces.length]} `;
  return text;
};
const mixed = million(['hello', 'Grüße', 'naïve', 'x=1;', 'function', '\n', '🙂', 'مرحبا']);
const cjk = '数据库系统的设计与实现'.repeat(100_000);
const random = Array.from({ length: 1_000_000 }, (_, k) =>
  String.fromCharCode(33 + (((k * 2654435761) >>> 0) % 90)),
).join('');

describe('offline pool workers under WORKER_LIMITS', () => {
  let worker: Worker;
  let nextId = 0;
  const inWorker = <T>(task: OfflineTask): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const onMessage = (reply: { id: number; ok: boolean; result?: unknown; message?: string }) => {
        if (reply.id !== id) return;
        worker.off('message', onMessage);
        if (reply.ok) resolve(reply.result as T);
        else reject(new Error(reply.message));
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.postMessage({ id, task });
    });

  beforeAll(() => {
    if (!existsSync(WORKER)) throw new Error(`${WORKER} is missing: run npm run build first`);
    worker = new Worker(WORKER, { resourceLimits: WORKER_LIMITS });
  });
  afterAll(async () => {
    await worker.terminate();
  });

  it.each([
    ['mixed', mixed],
    ['CJK', cjk],
    ['random', random],
  ])('counts and answers 1,000,000 characters of %s text', async (_name, text) => {
    const count: OfflineTask = { op: 'countText', text };
    expect(await inWorker<number>(count)).toBe(runOfflineTask(count));
    const answer = await inWorker<{ message: { content: string } }>({
      op: 'chat',
      request: { messages: [{ role: 'user', content: text }] },
    });
    expect(answer.message.content.length).toBeGreaterThan(text.length / 2);
  });

  it('counts four 2,100,000-character message lists at once', async () => {
    const task: OfflineTask = {
      op: 'countMessages',
      messages: [
        { role: 'user', content: random },
        { role: 'user', content: cjk },
      ],
    };
    const expected = runOfflineTask(task);
    expect(await Promise.all([1, 2, 3, 4].map(() => inWorker<number>(task)))).toEqual([
      expected,
      expected,
      expected,
      expected,
    ]);
  });
});
