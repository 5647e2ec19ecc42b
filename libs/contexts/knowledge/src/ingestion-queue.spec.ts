import { IngestionQueue, type IngestionJob } from './ingestion-queue.js';

const job = (documentId: string, version: number): IngestionJob => ({ documentId, version, force: false });

describe('IngestionQueue', () => {
  it('resolves an offer once its job (or a newer version of it) has been worked through', async () => {
    const worked: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new IngestionQueue(
      async (j) => {
        if (j.documentId === 'a' && j.version === 1) await gate;
        worked.push(`${j.documentId}@${j.version}`);
      },
      async () => undefined,
      { concurrency: 2, attempts: 1, backoffMs: 1 },
    );
    const first = queue.offer(job('a', 1));
    // While a@1 runs, a@2 and a@3 arrive: a@3 replaces a@2, which is never worked on its own.
    const second = queue.offer(job('a', 2));
    const third = queue.offer(job('a', 3));
    await queue.offer(job('b', 1));
    expect(worked).toEqual(['b@1']);
    release();
    await Promise.all([first, second, third]);
    expect(worked).toEqual(['b@1', 'a@1', 'a@3']);
    expect(queue.size).toBe(0);
  });

  it('gives a failing job up after its attempts, and resolves its offer', async () => {
    const givenUp: IngestionJob[] = [];
    let calls = 0;
    const queue = new IngestionQueue(
      async () => {
        calls += 1;
        throw new Error('boom');
      },
      async (j) => void givenUp.push(j),
      { concurrency: 1, attempts: 3, backoffMs: 1 },
    );
    await queue.offer(job('a', 1));
    expect(calls).toBe(3);
    expect(givenUp).toEqual([job('a', 1)]);
  });

  it('resolves the offers still waiting when it closes', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new IngestionQueue(
      () => gate,
      async () => undefined,
      {
        concurrency: 1,
        attempts: 1,
        backoffMs: 1,
      },
    );
    const running = queue.offer(job('a', 1));
    const waiting = queue.offer(job('b', 1));
    const closed = queue.close();
    release();
    await Promise.all([running, waiting, closed]);
    expect(queue.size).toBe(0);
  });
});
