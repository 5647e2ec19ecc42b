// The run queue: real sandbox runs (bubblewrap) write when they start and end from inside the sandbox; the most runs
// that overlapped is read from those stamps (no timing assertion). Skipped aloud where bubblewrap cannot run.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithReason } from '#testing/fixtures';
import { type RunResult } from '#sandbox';
import { BubblewrapSandbox } from '#sandbox/bubblewrap/bubblewrap-sandbox';
import { RunSlots, RunSlotsBusyError } from './run-slots.js';

const dataDir = await mkdtemp(join(tmpdir(), 'run-slots-'));
await chmod(dataDir, 0o755);
const sandbox = new BubblewrapSandbox({
  root: join(dataDir, 'sandboxes'),
  limits: {
    cpuSeconds: 5,
    memoryMb: 128,
    diskMb: 5,
    maxProcesses: 16,
    maxFileMb: 1,
    outputBytes: 4096,
    wallTimeoutMs: 20_000,
    idleTimeoutMs: 60_000,
  },
});
const availability = await sandbox.availability();
const never = (): AbortSignal => new AbortController().signal;

/** The most intervals open at once, from `start end` lines (nanoseconds since the epoch). */
function maxOverlap(results: readonly RunResult[]): number {
  const edges = results.flatMap((result) => {
    const [start, end] = result.stdout.trim().split(' ').map(BigInt) as [bigint, bigint];
    return [
      { at: start, delta: 1 },
      { at: end, delta: -1 },
    ];
  });
  edges.sort((a, b) => (a.at === b.at ? a.delta - b.delta : a.at < b.at ? -1 : 1));
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.delta;
    most = Math.max(most, open);
  }
  return most;
}

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('RunSlots without runs', () => {
  it('refuses at once when the queue is full, and a wait that runs out', async () => {
    const slots = new RunSlots({ global: 1, perUser: 1, maxQueued: 1, maxWaitMs: 200 });
    let release!: () => void;
    const holding = slots.withSlot('u1', never(), () => new Promise<void>((resolve) => (release = resolve)));
    const waiting = slots.withSlot('u2', never(), () => Promise.resolve('ran'));
    await expect(slots.withSlot('u3', never(), () => Promise.resolve('ran'))).rejects.toBeInstanceOf(
      RunSlotsBusyError,
    );
    await expect(waiting).rejects.toMatchObject({ code: 'code_execution_busy' });
    release();
    await holding;
    expect(slots.load).toEqual({ running: 0, queued: 0 });
  });

  it('lets a waiting run go when its caller aborts, and serves the others first come first served', async () => {
    const slots = new RunSlots({ global: 1, perUser: 1, maxQueued: 10, maxWaitMs: 60_000 });
    const order: string[] = [];
    let release!: () => void;
    const holding = slots.withSlot('a', never(), () => new Promise<void>((resolve) => (release = resolve)));
    const abort = new AbortController();
    const cancelled = slots.withSlot('b', abort.signal, async () => order.push('b'));
    const c = slots.withSlot('c', never(), async () => order.push('c'));
    const d = slots.withSlot('d', never(), async () => order.push('d'));
    abort.abort();
    await expect(cancelled).rejects.toBeInstanceOf(RunSlotsBusyError);
    release();
    await Promise.all([holding, c, d]);
    expect(order).toEqual(['c', 'd']);
  });
});

if (!availability.available) {
  skipWithReason('RunSlots with bubblewrap runs', availability.reason);
  it(`RunSlots with bubblewrap runs did not run: ${availability.reason}`, () =>
    expect(availability.reason).toBeTruthy());
} else {
  describe('RunSlots with bubblewrap runs', () => {
    const ids: string[] = [];
    const stamped = { language: 'shell' as const, code: 'a=$(date +%s%N); sleep 1; echo "$a $(date +%s%N)"' };

    beforeAll(async () => {
      for (let i = 0; i < 6; i += 1) {
        const id = `sbx-slots-${process.pid}-${i}`;
        await sandbox.create(id, []);
        ids.push(id);
      }
    });
    afterAll(async () => {
      for (const id of ids) await sandbox.destroy(id);
    });

    // What the queue promises, asserted as it decides (a slot is taken when a run is asked for, synchronously) and
    // checked against the stamps from inside the runs: never more at once than the limits. How many runs the
    // scheduler happened to overlap is not asserted: on a busy machine a sandbox may start after another ended.
    it('six parallel runs of six users with a global limit of 2 queue: never more than 2 at once', async () => {
      const slots = new RunSlots({ global: 2, perUser: 2, maxQueued: 10, maxWaitMs: 60_000 });
      const runs = ids.map((id, i) =>
        slots.withSlot(`user-${i}`, never(), () => sandbox.run(id, stamped, never())),
      );
      expect(slots.load).toEqual({ running: 2, queued: 4 });
      const results = await Promise.all(runs);
      for (const result of results) expect(result.exitCode).toBe(0);
      const most = maxOverlap(results);
      console.log(
        `six parallel runs, global limit 2: at most ${most} ran at once (stamps from inside the runs)`,
      );
      expect(most).toBeLessThanOrEqual(2);
      expect(slots.load).toEqual({ running: 0, queued: 0 });
    }, 60_000);

    it('five parallel runs of one user with a per-user limit of 2 queue, and do not hold up another user', async () => {
      const slots = new RunSlots({ global: 8, perUser: 2, maxQueued: 10, maxWaitMs: 60_000 });
      const mine = ids
        .slice(0, 5)
        .map((id) => slots.withSlot('one-user', never(), () => sandbox.run(id, stamped, never())));
      expect(slots.load).toEqual({ running: 2, queued: 3 });
      // The other user's run starts at once, beside the user's two, not behind the user's three waiting ones.
      const other = slots.withSlot('other-user', never(), () => sandbox.run(ids[5]!, stamped, never()));
      expect(slots.load).toEqual({ running: 3, queued: 3 });
      const [results, theirs] = await Promise.all([Promise.all(mine), other]);
      for (const result of [...results, theirs]) expect(result.exitCode).toBe(0);
      const most = maxOverlap(results);
      console.log(`five parallel runs of one user, per-user limit 2: at most ${most} at once`);
      expect(most).toBeLessThanOrEqual(2);
    }, 60_000);
  });
}
