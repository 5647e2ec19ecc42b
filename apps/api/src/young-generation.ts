// Start-up keeps V8's young generation small. V8 doubles the young generation (up to 2 × 64 MB on Node 24) whenever
// most of its objects survive a scavenge, and loading the api is exactly that: every module it parses, and every
// route, schema and projector it builds, lives on. The grown space stays resident until V8's memory reducer shrinks
// it some 10 s after the last full collection: an idle api held 128 MB of an empty young generation (RSS 246 MB;
// 124 MB once reduced; measured, README "Start-up and idle memory"). main.ts holds the growth off while the api
// loads and starts (those objects are promoted to the old generation, where they belong) and gives V8 its default
// back once the api is ready, so an api under load grows its young generation as before, up to the maximum the
// process was started with: `--max-semi-space-size=16` (package.json's start script, docker/Dockerfile), 2 × 16 MB
// instead of Node 24's 2 × 64 MB. The maximum can only be given at start (V8 sizes its heap before any script runs).
// Measured on the saturated gateway (bench/gateway.ts, 2 cores): 383–522 µs of api CPU per request against 964–1,040
// with the default, throughput 0.58–0.69 of direct against 0.39–0.41; 50 stalled streamed readers +96–100 MB at the
// peak against +331–359 MB. A young generation of 128 MB is more memory touched per scavenge cycle than this
// machine's caches hold, and the pages V8 gives back after each shrink are faulted in again on the next growth.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's default `--semi-space-growth-factor` (`node --v8-options`). */
const DEFAULT_GROWTH_FACTOR = 2;

/** Before the api's modules are imported: the young generation keeps its initial size. */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** Once ready: the young generation grows under load as V8 decides by default. */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}

/** How long after ready the start-up garbage is collected: the start's own follow-up work (projections catching up
 * on seeded events, process managers, the Skills seeder) has settled on a fresh start by then. */
export const STARTUP_GARBAGE_DELAY_MS = 1000;

/**
 * Once, shortly after ready and only while the api is idle: one full collection that gives the old generation's
 * start-up garbage back to the OS. Loading leaves some 30 MB of dead objects (module parsing, route and schema
 * building) in the old generation, and V8's memory reducer frees it only after some 15–20 s of idling (idle RSS 185 MB
 * at ready + 2 s, 147 MB after the reducer, measured). On an idle api the collection is a single pause of a few tens
 * of milliseconds; on one already serving requests it paused the loop for 0.2–0.4 s (40 big turns from the moment of
 * ready, measured), and the turns' own waits on worker threads leave the loop idle for moments. So it runs only in a
 * check window in which the loop was idle and while the heap in use has not grown by STARTUP_GARBAGE_GROWTH_BYTES
 * since ready (the garbage is still the start's own); a busy loop is checked again a moment later, up to
 * STARTUP_GARBAGE_TRIES times, and a heap a workload grew is left to V8 and the BurstCollector. The timers never keep
 * the process alive. `gc` is taken from a fresh context after `--expose-gc` (the way jest's leak detector does it), so
 * the api's own global scope never gets a `gc`.
 */
export function collectStartupGarbage(
  delayMs = STARTUP_GARBAGE_DELAY_MS,
  readings: HeapReadings = nodeReadings(),
): void {
  const window = Math.min(STARTUP_GARBAGE_CHECK_MS, delayMs);
  const usedAtReady = readings.heap().used;
  let tries = STARTUP_GARBAGE_TRIES;
  const check = (): void => {
    if (readings.heap().used - usedAtReady > STARTUP_GARBAGE_GROWTH_BYTES) return;
    if (readings.utilization() <= BurstCollector.IDLE_UTILIZATION) readings.collect();
    else if (--tries > 0) setTimeout(check, window).unref();
  };
  // The first reading only starts the window the first check looks at.
  setTimeout(() => {
    readings.utilization();
    setTimeout(check, window).unref();
  }, delayMs - window).unref();
}

/** Growth of the heap in use since ready past which the garbage is a workload's, not the start's. */
export const STARTUP_GARBAGE_GROWTH_BYTES = 16 * 1024 * 1024;
/** The window of event-loop utilization each check of the start-up collection looks at. */
export const STARTUP_GARBAGE_CHECK_MS = 250;
/** Checks before the start-up collection is left to V8 for good (a loop busy this long has collected on its own). */
export const STARTUP_GARBAGE_TRIES = 120;

/** A full collection that also shrinks the young generation and gives freed pages back to the OS. */
function collectAllGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: string; flavor: string }) => void;
  gc({ type: 'major', flavor: 'last-resort' });
}

/** What the burst collector reads each tick, and what it calls: injectable so its decisions can be tested. */
export interface HeapReadings {
  /** Bytes of the heap in use and committed now (`v8.getHeapStatistics()`). */
  heap(): { readonly used: number; readonly total: number };
  /** The event loop's utilization since the previous call (0 idle … 1 busy). */
  utilization(): number;
  collect(): void;
}

const nodeReadings = (): HeapReadings => {
  let last = performance.eventLoopUtilization();
  return {
    heap: () => {
      const { used_heap_size: used, total_heap_size: total } = getHeapStatistics();
      return { used, total };
    },
    utilization: () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
    collect: collectAllGarbage,
  };
};

/**
 * After a burst, the heap it grew goes back to the OS within a second or two instead of some 20 s. A burst (50
 * clients sending 200 KB prompts and streaming 200,000-character answers they never read) allocates gigabytes in
 * seconds; V8 grows its heap to keep up (the young generation to 128 MB, the old one with what survived), and once
 * every stream waits on its stalled client nothing allocates, so nothing makes V8 shrink it: the api sat at +250 MB,
 * two thirds of it committed but unused, until V8's memory reducer ran (docs/security.md, "The red-team rerun").
 * This checks once a second: when the event loop was idle (≤ 5 % busy), the heap holds 64 MB more than it uses, and it grew by 32 MB
 * since it was last shrunk, it collects once and shrinks (one pause of a few tens of milliseconds, only when nothing
 * is waiting). Under load the loop is busy and V8 decides alone; an idle api whose heap did not grow is never touched,
 * and a heap a collection could not shrink is not collected again until it grows.
 */
export class BurstCollector {
  static readonly SLACK_BYTES = 64 * 1024 * 1024;
  static readonly GROWTH_BYTES = 32 * 1024 * 1024;
  static readonly IDLE_UTILIZATION = 0.05;
  private shrunkTo: number;

  constructor(private readonly readings: HeapReadings) {
    this.shrunkTo = readings.heap().total;
  }

  /** One check: returns whether it collected. */
  tick(): boolean {
    const busy = this.readings.utilization();
    const { used, total } = this.readings.heap();
    // V8 shrank the heap on its own since: growth counts from there.
    if (total < this.shrunkTo) this.shrunkTo = total;
    if (
      busy > BurstCollector.IDLE_UTILIZATION ||
      total - used < BurstCollector.SLACK_BYTES ||
      total - this.shrunkTo < BurstCollector.GROWTH_BYTES
    )
      return false;
    this.readings.collect();
    this.shrunkTo = this.readings.heap().total;
    return true;
  }

  /** Checks every `intervalMs` on a timer that never keeps the process alive. */
  static start(intervalMs = 1000, readings: HeapReadings = nodeReadings()): NodeJS.Timeout {
    const collector = new BurstCollector(readings);
    return setInterval(() => collector.tick(), intervalMs).unref();
  }
}
