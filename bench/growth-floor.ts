// This machine's floor for the vector leg at a size: one pass of WebAssembly SIMD loads over as many bytes as the
// chunks' int8 codes (384 a chunk of 384 dimensions), adding them up and nothing else. The api's exact int8 scan
// reads each of those bytes once per search (int8-scan.ts), so no exact scan here can be faster than this pass:
// memory bandwidth, measured in this process beside the api's figures.
import { I32, instantiate, oneFunctionModule, simd, V128 } from '#search/sqlite/wasm-module';
import { median } from './util.js';

const V128_LOAD = 0x00;
const I32X4_ADD = 0xae;
const I32X4_EXTRACT_LANE = 0x1b;
// sum(at, bytes, _, _, out): locals 5 end (i32), 6–9 four accumulators (v128, so that the adds do not wait on each
// other); adds every 16 bytes from `at` to `at + bytes` (a multiple of 64), 64 a step.
const load = (offset: number, accumulator: number): number[] => [
  ...[0x20, accumulator, 0x20, 0, ...simd(V128_LOAD), 4, offset, ...simd(I32X4_ADD), 0x21, accumulator],
];
const BODY = [
  ...[2, 1, I32, 4, V128],
  ...[0x20, 0, 0x20, 1, 0x6a, 0x21, 5], // end = at + bytes
  ...[0x02, 0x40, 0x03, 0x40], // block, loop
  ...[0x20, 0, 0x20, 5, 0x4f, 0x0d, 1], // at >= end: done
  ...load(0, 6),
  ...load(16, 7),
  ...load(32, 8),
  ...load(48, 9),
  ...[0x20, 0, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0, 0x0c, 0], // at += 64
  ...[0x0b, 0x0b],
  ...[
    0x20,
    6,
    0x20,
    7,
    ...simd(I32X4_ADD),
    0x20,
    8,
    ...simd(I32X4_ADD),
    0x20,
    9,
    ...simd(I32X4_ADD),
    0x21,
    6,
  ],
  ...[0x20, 4, 0x20, 6, ...simd(I32X4_EXTRACT_LANE), 0, 0x36, 2, 0], // out = a lane (the pass is not optimised away)
  0x0b,
];

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  readonly sum: (at: number, bytes: number, unused1: number, unused2: number, out: number) => void;
}

/** The p50 in ms of `passes` passes over `bytes` bytes, a multiple of 64 (written first: every page real memory). */
export function simdPassFloor(bytes: number, passes = 7): number {
  const wasm = instantiate<Exports>(oneFunctionModule('sum', BODY));
  if (!wasm) throw new Error('no WebAssembly on this machine');
  const at = 64;
  const needed = at + bytes - wasm.memory.buffer.byteLength;
  if (needed > 0) wasm.memory.grow(Math.ceil(needed / 65536));
  new Uint8Array(wasm.memory.buffer, at, bytes).fill(1);
  const times: number[] = [];
  for (let pass = 0; pass <= passes; pass++) {
    const started = performance.now();
    wasm.sum(at, bytes, 0, 0, 0);
    if (pass > 0) times.push(performance.now() - started);
  }
  return median(times);
}
