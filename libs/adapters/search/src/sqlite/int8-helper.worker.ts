// The int8 scan's helper thread (started by int8-helper.ts): the scan module over the searching thread's shared
// memory, waiting on the control words for a job; for each segment it claims it passes over the codes with its own
// threshold and hands back the groups that may hold a row of the best, tagged with their segment.
//
// It runs at the lowest priority where the system lets a thread set its own (Linux: /proc/thread-self names it): it
// only ever takes time a core would otherwise idle, and its waking never preempts the searching thread. Measured on
// this machine's two virtual cores, a helper woken at the normal priority was put on the searching thread's core and
// ran there first (a search after an idle pause: 0.8 ms in the wake-up call alone).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import {
  AREA,
  CONTROL,
  ENTRY_BYTES,
  JOINED,
  OPEN,
  OUT_BYTES,
  PARAMS,
  PARAMS_AT,
  status,
} from './int8-helper.js';
import {
  callDots,
  groupBytes,
  LowerBounds,
  MODULE_BYTES,
  SEGMENT_GROUPS,
  type ScanExports,
} from './int8-scan.js';
import { instantiate, type WasmMemory } from './wasm-module.js';

const { memory, control: controlBuffer } = workerData as { memory: WasmMemory; control: SharedArrayBuffer };
const control = new Int32Array(controlBuffer);
const params = new Float64Array(controlBuffer, PARAMS_AT, 8);
const wasm = instantiate<ScanExports>(MODULE_BYTES, memory)!;
const area = control[CONTROL.area]!;

let int32s = new Int32Array(memory.buffer);
let float32s = new Float32Array(memory.buffer);
let float64s = new Float64Array(memory.buffer);

/** The job's segments, claimed one at a time while the area has room for a segment's groups. */
function scan(): void {
  if (int32s.buffer !== memory.buffer) {
    int32s = new Int32Array(memory.buffer);
    float32s = new Float32Array(memory.buffer);
    float64s = new Float64Array(memory.buffer);
  }
  const count = control[CONTROL.count]!;
  const stride = control[CONTROL.stride]!;
  const seed = params[PARAMS.seed]!;
  const factors = {
    dotPerScale: params[PARAMS.dotPerScale]!,
    errorPerScale: params[PARAMS.errorPerScale]!,
    extentPerScale: params[PARAMS.extentPerScale]!,
  };
  const { dotPerScale, errorPerScale } = factors;
  const lowers = new LowerBounds(params[PARAMS.capacity]!);
  const bytesPerGroup = groupBytes(stride);
  let entries = 0;
  while ((entries + SEGMENT_GROUPS) * ENTRY_BYTES <= OUT_BYTES) {
    const segment = Atomics.add(control, CONTROL.next, 1);
    if (segment >= count) break;
    Atomics.store(control, CONTROL.current, segment + 1);
    const row = (area + AREA.table + 16 * segment) >> 2;
    const at = int32s[row]!;
    const groups = int32s[row + 1]!;
    const maxScale = float64s[(row >> 1) + 1]!;
    const out = area + AREA.out + entries * ENTRY_BYTES;
    const call = { query: area + AREA.query, codes: at, groups, stride, out };
    const passed = callDots(wasm, float32s, call, Math.max(seed, lowers.threshold), maxScale, factors);
    for (let entry = out >> 2; entry < (out >> 2) + 8 * passed; entry += 8) {
      int32s[entry + 5] = segment;
      // Each row's lower bound, from its float32 scale (the module's): lowered by far more than that scale's
      // rounding, so it stays below the row's exact score. Padding rows (scale 0) are not rows.
      const scales = (at + int32s[entry + 4]! * bytesPerGroup + 4 * stride) >> 2;
      for (let r = 0; r < 4; r++) {
        const scale = float32s[scales + r]!;
        if (scale === 0) continue;
        const lower = (dotPerScale * int32s[entry + r]! - errorPerScale) * scale;
        lowers.offer(lower - Math.abs(lower) * 1e-6 - 1e-12);
      }
    }
    entries += passed;
    Atomics.store(control, CONTROL.entries, entries);
    Atomics.store(control, CONTROL.current, 0);
  }
}

try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {
  // Not Linux, or not allowed: the normal priority.
}
let seen = Atomics.load(control, CONTROL.job);
Atomics.store(control, CONTROL.ready, 1);
for (;;) {
  Atomics.wait(control, CONTROL.job, seen);
  seen = Atomics.load(control, CONTROL.job);
  if (Atomics.load(control, CONTROL.stop) === 1) break;
  // A job the searching thread closed before this thread woke is not joined.
  const open = status(seen, OPEN);
  if (Atomics.compareExchange(control, CONTROL.status, open, status(seen, JOINED)) !== open) continue;
  try {
    scan();
  } catch {
    // CONTROL.current still names the segment it failed in: the searching thread passes over it.
  }
  Atomics.store(control, CONTROL.done, seen);
  Atomics.notify(control, CONTROL.done);
}
