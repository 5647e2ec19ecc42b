// A second thread for a large int8 scan's pass (int8-scan.ts). The codes live in a shared WebAssembly memory; once the
// scan's first rows have set a threshold, its runs (segments of about ten documents) are put off to its end, where the
// searching thread and this helper claim them one at a time from a shared counter and pass over them side by side,
// each with the threshold it has. The helper's own threshold starts from the searching thread's (every lower bound in
// either is a real row's, so either is at most the best scores' last) and rises with the rows it finds; the groups
// it hands back are checked by the searching thread exactly as its own are, so the result is the scan's, ties and
// all. Measured in process on two cores, searches 15 ms apart: a million chunks 15.9 → 10.8 ms with every float
// cached, 18.0 → 11.2 ms with the codes alone; 100,000 back to back 1.85 → 1.2 ms.
//
// The searching thread waits for the helper only while it is passing over a segment it claimed: a helper that has
// not woken up by the time the segments are gone is told the job is closed and joins nothing. A helper that fails
// in a segment says which (the searching thread passes over it); one that has not finished in HELPER_DEADLINE_MS is
// given up (its groups are dropped, the searching thread passes over every segment it did not, and no scan uses it
// again). The worker is the compiled `int8-helper.worker.js` beside this module; from the TypeScript sources
// (ts-jest) there is none unless one is given (useScanHelper), and every scan runs in one thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WasmMemory } from './wasm-module.js';

const COMPILED_WORKER = new URL('./int8-helper.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultScanHelper = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/** The control words' indexes (an Int32Array over a SharedArrayBuffer of their own). */
export const CONTROL = {
  /** The job's number: the searching thread adds one to post a job. */
  job: 0,
  /**
   * The job's number times four plus its state: OPEN until the helper joins it (JOINED) or the searching thread
   * closes it without the helper (CLOSED). A helper that wakes late cannot join a later job in an earlier one's name.
   */
  status: 1,
  /** The next segment to claim, and how many there are. */
  next: 2,
  count: 3,
  /** The last job the helper finished. */
  done: 4,
  /** The groups the helper handed back in the segments it finished. */
  entries: 5,
  /** One more than the segment the helper is passing over (0: none; left set when it failed there). */
  current: 6,
  ready: 7,
  stride: 8,
  stop: 9,
  /** Where the helper's area begins in the shared memory. */
  area: 10,
} as const;
export const OPEN = 0;
export const JOINED = 1;
export const CLOSED = 2;
/** The status word of job `job` in `state`. */
export const status = (job: number, state: number): number => ((job & 0x1fffffff) << 2) | state;
/** The job's numbers (a Float64Array over the same buffer, from byte PARAMS_AT). */
export const PARAMS = { seed: 0, dotPerScale: 1, errorPerScale: 2, extentPerScale: 3, capacity: 4 } as const;
export const PARAMS_AT = 64;
const CONTROL_BYTES = PARAMS_AT + 8 * 8;

/**
 * The helper's area in the shared memory: the query (int16, up to 4,096 dimensions), the segments' table (their
 * codes' byte, groups, and largest scale: 16 bytes each, up to TABLE_SEGMENTS), then the groups it hands back (32
 * bytes each: the four dots, the segment's group, the segment).
 */
export const AREA = { query: 0, table: 8192, out: 8192 + 16 * 8192 } as const;
export const TABLE_SEGMENTS = 8192;
export const OUT_BYTES = 1 << 20;
export const AREA_BYTES = AREA.out + OUT_BYTES;
export const ENTRY_BYTES = 32;

/** How long the searching thread waits for a helper that has joined (a healthy one takes well under a millisecond). */
const HELPER_DEADLINE_MS = 2_000;

/** A segment shared with the helper: its codes' first byte, its groups of four rows, its largest scale. */
export interface SharedSegment {
  readonly at: number;
  readonly groups: number;
  readonly maxScale: number;
}

/** The numbers of a scan's bound, per unit of a vector's scale (see Int8Scan's constructor). */
export interface BoundFactors {
  readonly dotPerScale: number;
  readonly errorPerScale: number;
  readonly extentPerScale: number;
}

/** The numbers of the scan a job belongs to (see Int8Scan): its bound's factors, threshold so far and capacity. */
export interface JobNumbers extends BoundFactors {
  readonly seed: number;
  readonly capacity: number;
}

/** What the helper did in a job. */
export type JobOutcome =
  /** Its groups (`entries`, from `out`), and the segment it failed in (or -1). */
  | { readonly entries: number; readonly out: number; readonly failed: number }
  /** Given up: its groups are not to be used; every segment the searching thread did not pass over is left. */
  | { readonly abandoned: true };

export class ScanHelper {
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_BYTES));
  private readonly params = new Float64Array(this.control.buffer, PARAMS_AT, 8);
  private readonly worker: Worker | null = null;
  private broken = false;
  private job = 0;

  constructor(
    workerUrl: URL,
    memory: WasmMemory,
    private readonly area: number,
  ) {
    this.control[CONTROL.area] = area;
    this.control[CONTROL.done] = 0;
    try {
      const worker = new Worker(workerUrl, {
        workerData: { memory, control: this.control.buffer },
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      });
      worker.unref();
      worker.on('error', () => (this.broken = true));
      worker.on('exit', () => (this.broken = true));
      this.worker = worker;
    } catch {
      this.broken = true;
    }
  }

  /** Whether the helper has started and takes jobs. */
  get usable(): boolean {
    return !this.broken && Atomics.load(this.control, CONTROL.ready) === 1;
  }

  /**
   * Posts a job over `segments` (up to TABLE_SEGMENTS of them; returns how many were shared): the query (int16, its
   * stride of values) and the scan's numbers. The caller then claims segments (claim) and, once none is left, ends
   * the job (finish).
   */
  post(
    segments: readonly SharedSegment[],
    query: Int16Array,
    numbers: JobNumbers,
    view: SharedViews,
  ): number {
    const shared = Math.min(segments.length, TABLE_SEGMENTS);
    const { int32s, float64s } = view;
    new Int16Array(int32s.buffer, this.area + AREA.query, query.length).set(query);
    for (let i = 0; i < shared; i++) {
      const at = (this.area + AREA.table + 16 * i) >> 2;
      int32s[at] = segments[i]!.at;
      int32s[at + 1] = segments[i]!.groups;
      float64s[(at >> 1) + 1] = segments[i]!.maxScale;
    }
    const { control, params } = this;
    params[PARAMS.seed] = numbers.seed;
    params[PARAMS.dotPerScale] = numbers.dotPerScale;
    params[PARAMS.errorPerScale] = numbers.errorPerScale;
    params[PARAMS.extentPerScale] = numbers.extentPerScale;
    params[PARAMS.capacity] = numbers.capacity;
    control[CONTROL.stride] = query.length;
    control[CONTROL.count] = shared;
    control[CONTROL.entries] = 0;
    control[CONTROL.current] = 0;
    Atomics.store(control, CONTROL.next, 0);
    this.job = (this.job + 1) & 0x1fffffff;
    Atomics.store(control, CONTROL.status, status(this.job, OPEN));
    Atomics.store(control, CONTROL.job, this.job);
    Atomics.notify(control, CONTROL.job);
    return shared;
  }

  /** The next segment for the searching thread, or -1 when none is left. */
  claim(): number {
    const segment = Atomics.add(this.control, CONTROL.next, 1);
    return segment < this.control[CONTROL.count]! ? segment : -1;
  }

  /** Ends the job once no segment is left to claim: waits for the helper if it joined (see JobOutcome). */
  finish(): JobOutcome {
    const { control } = this;
    const out = this.area + AREA.out;
    const open = status(this.job, OPEN);
    if (Atomics.compareExchange(control, CONTROL.status, open, status(this.job, CLOSED)) === open)
      return { entries: 0, out, failed: -1 };
    const deadline = performance.now() + HELPER_DEADLINE_MS;
    for (;;) {
      const done = Atomics.load(control, CONTROL.done);
      if (done === this.job) break;
      const left = deadline - performance.now();
      if (left <= 0) {
        // Given up for good: it may still write its own area, which no other job reads.
        this.broken = true;
        void this.worker?.terminate();
        return { abandoned: true };
      }
      Atomics.wait(control, CONTROL.done, done, left);
    }
    const current = control[CONTROL.current]!;
    if (current !== 0) this.broken = true;
    return { entries: control[CONTROL.entries]!, out, failed: current - 1 };
  }

  /** Stops the helper (its thread ends). */
  close(): void {
    this.broken = true;
    Atomics.store(this.control, CONTROL.stop, 1);
    this.job = (this.job + 1) & 0x1fffffff;
    Atomics.store(this.control, CONTROL.job, this.job);
    Atomics.notify(this.control, CONTROL.job);
  }
}

/** The shared memory as int32 and float64 values. */
export interface SharedViews {
  readonly int32s: Int32Array;
  readonly float64s: Float64Array;
}
