// A first, cheap pass of the exact vector scan: each cached document's vectors are also kept as int8 codes (one
// scale per vector) in the linear memory of a small WebAssembly SIMD module, where they stay between searches; a
// search multiplies them with the query quantized to int16 (exact integer dot products), and only the vectors whose
// approximate score, widened by its proven error bound, could still reach the best `capacity` are scored exactly
// afterwards (dotAt, the exact scan's arithmetic). So the result is the exact scan's, ties and all, while the pass
// over every vector reads a quarter of the bytes and copies nothing: at 100,000 vectors of 384 dimensions the exact
// scan copied 150 MB into the scan module per search.
//
// Error bound: with x ≈ s·c (|x_i − s·c_i| ≤ s/2) and q ≈ t·k (|q_i − t·k_i| ≤ t/2),
//   |q·x − t·s·(k·c)| ≤ Σ|q_i|·|x_i − s·c_i| + Σ|q_i − t·k_i|·|s·c_i| ≤ s·(‖q‖₁ + t·127·D) / 2.
//
// The module (hand-assembled, 1 function, no imports) exports its memory and
// dots(query, codes, groups, stride, out): the int32 dot products of `groups` groups of four rows of int8 codes from
// byte `codes` with the `stride` int16 values at byte `query`; only the groups where a row's upper bound reaches the
// threshold are stored, from `out` (32 bytes each: the four dots, then the group's index), and it returns how many.
// The threshold and the two factors of the bound are three floats at `out`, read before the first result is stored.
// A group's rows are interleaved sixteen codes at a time (row r's codes d … d + 15 at 64·(d / 16) + 16·r), followed
// by the four rows' scales (float32): each sixteen query values loaded serve four rows, every load has a constant
// offset, and the four sums are added across lanes together. Each row's bound, scale·(dot·dotPerScale +
// errorPerScale), is computed in float32 against the threshold lowered by more than float32's rounding could move it
// (the floats at `out`), so the module never drops a row the exact check below keeps. With each row's own
// scale, about one group in forty passes at 100,000 rows (with the block's largest scale for all four rows, which an
// int32 minimum allowed, more than half did), and JavaScript checks only those rows.
// Documents' blocks that lie end to end in the memory (a cache's documents, encoded one after another) are passed
// over in one call, about ten at a time, once the first rows have set a threshold. The same documents searched again
// are offered as an Int8Run: cut into those runs once, so a search's JavaScript is per run, not per document.
// Once the first rows have set a threshold, the runs are put off to the scan's end, where a large scan's are passed
// over by this thread and a helper thread side by side (int8-helper.ts: the codes live in a shared memory).
// The survivors are then scored best bound first, until the top can admit none at the next bound.
// Over 300 lines on purpose: the WebAssembly module, its memory layout and the error bound that keeps the
// scan exact belong together.
import {
  AREA_BYTES,
  type BoundFactors,
  defaultScanHelper,
  ENTRY_BYTES,
  ScanHelper,
  type SharedViews,
} from './int8-helper.js';
import { dotAt } from './packed-vectors.js';
import {
  I32,
  instantiate,
  oneFunctionModule,
  sharedMemory,
  simd,
  V128,
  type WasmMemory,
} from './wasm-module.js';

const V128_LOAD = 0x00;
const V128_LOAD32_SPLAT = 0x09;
const V128_STORE = 0x0b;
const V128_CONST = 0x0c;
const I8X16_SHUFFLE = 0x0d;
const F32X4_GE = 0x46;
const V128_ANY_TRUE = 0x53;
const I16X8_EXTEND_LOW_I8X16_S = 0x87;
const I16X8_EXTEND_HIGH_I8X16_S = 0x88;
const I32X4_ADD = 0xae;
const I32X4_DOT_I16X8_S = 0xba;
const F32X4_ADD = 0xe4;
const F32X4_MUL = 0xe6;
const F32X4_CONVERT_I32X4_S = 0xfa;
// Locals: 0 query, 1 codes (the running pointer), 2 groups, 3 stride, 4 out (params); 5 group, 6 q, 7 query end,
// 8 at (where the next group that passes goes) (i32); 9–12 the four rows' sums, 13 and 14 sixteen query values,
// 15 sixteen codes, 16 the lowered threshold, 17 dotPerScale and 18 errorPerScale, each in every lane (v128).
const AT = 8;
const SUMS = 9;
const QUERY_LOW = 13;
const QUERY_HIGH = 14;
const CODES = 15;
const THRESHOLD = 16;
const DOT_PER_SCALE = 17;
const ERROR_PER_SCALE = 18;
/** Row r's sixteen codes at `codes + 16r`, both halves multiplied with the query values and added to its sums. */
const rowSums = (r: number): number[] => [
  ...[0x20, 1, ...simd(V128_LOAD), 4, 16 * r, 0x21, CODES],
  ...[0x20, CODES, ...simd(I16X8_EXTEND_LOW_I8X16_S), 0x20, QUERY_LOW, ...simd(I32X4_DOT_I16X8_S)],
  ...[0x20, SUMS + r, ...simd(I32X4_ADD), 0x21, SUMS + r],
  ...[0x20, CODES, ...simd(I16X8_EXTEND_HIGH_I8X16_S), 0x20, QUERY_HIGH, ...simd(I32X4_DOT_I16X8_S)],
  ...[0x20, SUMS + r, ...simd(I32X4_ADD), 0x21, SUMS + r],
];
// Lanes 0 and 2, then 1 and 3, of two i32x4 side by side: their sum is [a0+a1, a2+a3, b0+b1, b2+b3].
const EVEN = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];
const ODD = [4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31];
const pairSums = (a: number, b: number): number[] => [
  ...[0x20, a, 0x20, b, ...simd(I8X16_SHUFFLE), ...EVEN],
  ...[0x20, a, 0x20, b, ...simd(I8X16_SHUFFLE), ...ODD],
  ...simd(I32X4_ADD),
];
const BODY = [
  ...[2, 4, I32, 10, V128],
  ...[0x20, 4, ...simd(V128_LOAD32_SPLAT), 2, 0, 0x21, THRESHOLD], // the floats at out, out + 4 and out + 8
  ...[0x20, 4, ...simd(V128_LOAD32_SPLAT), 2, 4, 0x21, DOT_PER_SCALE],
  ...[0x20, 4, ...simd(V128_LOAD32_SPLAT), 2, 8, 0x21, ERROR_PER_SCALE],
  ...[0x20, 0, 0x20, 3, 0x41, 1, 0x74, 0x6a, 0x21, 7], // query end = query + (stride << 1)
  ...[0x20, 4, 0x21, AT], // at = out
  ...[0x02, 0x40, 0x03, 0x40], // block, loop (groups)
  ...[0x20, 5, 0x20, 2, 0x4f, 0x0d, 1], // group >= groups: done
  ...[...simd(V128_CONST), ...new Array<number>(16).fill(0)],
  ...[0x22, SUMS, 0x22, SUMS + 1, 0x22, SUMS + 2, 0x21, SUMS + 3],
  ...[0x20, 0, 0x21, 6], // q = query
  ...[0x02, 0x40, 0x03, 0x40], // block, loop (sixteen dimensions at a time)
  ...[0x20, 6, 0x20, 7, 0x4f, 0x0d, 1], // q >= query end: group done
  ...[0x20, 6, ...simd(V128_LOAD), 4, 0, 0x21, QUERY_LOW],
  ...[0x20, 6, ...simd(V128_LOAD), 4, 16, 0x21, QUERY_HIGH],
  ...rowSums(0),
  ...rowSums(1),
  ...rowSums(2),
  ...rowSums(3),
  ...[0x20, 1, 0x41, 0xc0, 0x00, 0x6a, 0x21, 1], // codes += 64
  ...[0x20, 6, 0x41, 32, 0x6a, 0x21, 6, 0x0c, 0], // q += 32
  ...[0x0b, 0x0b],
  ...[...pairSums(SUMS, SUMS + 1), 0x21, SUMS, ...pairSums(SUMS + 2, SUMS + 3), 0x21, SUMS + 2],
  ...[...pairSums(SUMS, SUMS + 2), 0x21, SUMS], // the four rows' dots
  // The rows' bounds, scale · (dot · dotPerScale + errorPerScale), the scales after the group's codes: if one reaches
  ...[0x20, SUMS, ...simd(F32X4_CONVERT_I32X4_S), 0x20, DOT_PER_SCALE, ...simd(F32X4_MUL)],
  ...[0x20, ERROR_PER_SCALE, ...simd(F32X4_ADD), 0x20, 1, ...simd(V128_LOAD), 4, 0, ...simd(F32X4_MUL)],
  ...[0x20, THRESHOLD, ...simd(F32X4_GE), ...simd(V128_ANY_TRUE), 0x04, 0x40],
  ...[0x20, AT, 0x20, SUMS, ...simd(V128_STORE), 4, 0], // at[0..3] = the dots
  ...[0x20, AT, 0x20, 5, 0x36, 2, 16], // at[4] = group
  ...[0x20, AT, 0x41, 32, 0x6a, 0x21, AT, 0x0b], // at += 32
  ...[0x20, 1, 0x41, 16, 0x6a, 0x21, 1], // codes += 16 (the scales)
  ...[0x20, 5, 0x41, 1, 0x6a, 0x21, 5, 0x0c, 0], // group += 1
  ...[0x0b, 0x0b],
  ...[0x20, AT, 0x20, 4, 0x6b, 0x41, 5, 0x76], // the groups that passed: (at − out) >> 5
  0x0b,
];
/** The module, over a shared memory (int8-helper.worker.ts instantiates it too, over the same memory). */
export const MODULE_BYTES = oneFunctionModule('dots', BODY, true, true);

export interface ScanExports {
  readonly memory: WasmMemory;
  readonly dots: (query: number, codes: number, groups: number, stride: number, out: number) => number;
}

const PAGE = 65536;
/**
 * The fixed area: the query (int16, up to 4,096 dimensions), then the groups that pass in one call (up to BATCH rows:
 * four dots and the group's index, 32 bytes each; the call's three floats before them).
 */
const QUERY_AT = 0;
const BATCH = 4096;
/** The most groups a run passed over in one call holds (one piece of BATCH rows; runs of pieces hold RUN_GROUPS). */
export const SEGMENT_GROUPS = BATCH / 4;
const OUT_AT = QUERY_AT + 4096 * 2;
/**
 * The most groups one call passes over (1,024 rows, about ten documents): fewer calls cost less, but the threshold a
 * call compares with is the one it starts with (measured at 100,000 rows: 64 groups 2.0–2.1 ms, 256 and 1,024 groups
 * 1.7–1.8 ms, a call per document of 100 rows 2.4 ms; the larger runs hand back more groups).
 */
const RUN_GROUPS = 256;
const ARENA_AT = OUT_AT + BATCH * 8;
const ALIGN = 16;
/**
 * The float32 bound's error is below 10 roundings of 2⁻²⁴ each of the largest term it adds (see margin): the
 * threshold is lowered by 10⁻⁶ of it, about 17 times more.
 */
const FLOAT32_SLACK = 1e-6;

/**
 * One call of the module over `groups` groups of codes from byte `codes` (rows of scale at most `maxScale`), the query
 * at byte `query`: its three floats written at `out` first. The module hands back only the groups where a row's
 * float32 bound reaches `threshold` lowered by more than that bound's rounding error, so no row that can be kept is
 * missed. Returns how many groups it stored from `out`.
 */
export function callDots(
  wasm: ScanExports,
  float32s: Float32Array,
  call: {
    readonly query: number;
    readonly codes: number;
    readonly groups: number;
    readonly stride: number;
    readonly out: number;
  },
  threshold: number,
  maxScale: number,
  factors: BoundFactors,
): number {
  const at = call.out >> 2;
  float32s[at] = threshold - FLOAT32_SLACK * (1 + Math.abs(threshold) + maxScale * factors.extentPerScale);
  float32s[at + 1] = factors.dotPerScale;
  float32s[at + 2] = factors.errorPerScale;
  return wasm.dots(call.query, call.codes, call.groups, call.stride, call.out);
}

/**
 * The runs a scan puts off once its threshold is set are shared with the helper thread (int8-helper.ts) when they hold
 * at least this many groups (16,384 rows: below it, the scan takes a fraction of a millisecond in one thread).
 */
const HELPER_MIN_GROUPS = 4096;

/**
 * The module's memory past the fixed area, handed out in blocks: first fit over the free ranges (kept sorted and
 * merged with their neighbours), growing the memory when nothing fits. WebAssembly memory never shrinks; the cache
 * that owns the blocks bounds how much is in use.
 */
class Arena {
  private free: { at: number; size: number }[] = [];
  private end = ARENA_AT;

  constructor(private readonly wasm: ScanExports) {}

  allocate(bytes: number): number {
    const size = Math.ceil(bytes / ALIGN) * ALIGN;
    const fit = this.free.findIndex((range) => range.size >= size);
    if (fit >= 0) {
      const range = this.free[fit]!;
      const at = range.at;
      if (range.size === size) this.free.splice(fit, 1);
      else this.free[fit] = { at: at + size, size: range.size - size };
      return at;
    }
    const at = this.end;
    const needed = at + size - this.wasm.memory.buffer.byteLength;
    if (needed > 0) this.wasm.memory.grow(Math.ceil(needed / PAGE));
    this.end = at + size;
    return at;
  }

  release(at: number, bytes: number): void {
    const size = Math.ceil(bytes / ALIGN) * ALIGN;
    let i = 0;
    while (i < this.free.length && this.free[i]!.at < at) i++;
    this.free.splice(i, 0, { at, size });
    // Merge with the next range, then with the previous one.
    const next = this.free[i + 1];
    if (next && at + size === next.at) {
      this.free[i] = { at, size: size + next.size };
      this.free.splice(i + 1, 1);
    }
    const previous = this.free[i - 1];
    if (previous && previous.at + previous.size === at) {
      this.free[i - 1] = { at: previous.at, size: previous.size + this.free[i]!.size };
      this.free.splice(i, 1);
    }
    const last = this.free[this.free.length - 1];
    if (last && last.at + last.size === this.end) {
      this.end = last.at;
      this.free.pop();
    }
  }
}

let compiled: { wasm: ScanExports; arena: Arena } | null | undefined;
/** The scan whose offered blocks are not passed over yet (see Int8Scan.pass), if any. */
const pending: { scan: Int8Scan | null } = { scan: null };
interface MemoryViews extends SharedViews {
  readonly float32s: Float32Array;
}
let memoryView: MemoryViews | null = null;

/** The module's memory as int32, float32 and float64 values (views made again when the memory has grown). */
function views(wasm: ScanExports): MemoryViews {
  if (memoryView?.int32s.buffer !== wasm.memory.buffer)
    memoryView = {
      int32s: new Int32Array(wasm.memory.buffer),
      float32s: new Float32Array(wasm.memory.buffer),
      float64s: new Float64Array(wasm.memory.buffer),
    };
  return memoryView;
}

function module(): { wasm: ScanExports; arena: Arena } | null {
  if (compiled === undefined) {
    try {
      const wasm = instantiate<ScanExports>(MODULE_BYTES, sharedMemory());
      compiled = wasm ? { wasm, arena: new Arena(wasm) } : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * The helper thread: not started yet (undefined), none (null: no worker, or its area could not be had), or it. Its
 * area of the memory is never handed out again (a helper given up may still be writing there).
 */
let helper: ScanHelper | null | undefined;
let helperWorker: URL | null | undefined;

/**
 * Which worker the helper thread runs (the compiled one beside this module by default), or none: every scan in one
 * thread. A helper already started is stopped.
 */
export function useScanHelper(worker: URL | null): void {
  helper?.close();
  helper = undefined;
  helperWorker = worker;
}

/** The helper once it takes jobs; started (not waited for) on the first call. */
function scanHelper(): ScanHelper | null {
  if (helper === undefined) {
    const found = module();
    const worker = helperWorker === undefined ? defaultScanHelper() : helperWorker;
    helper = found && worker ? startHelper(found, worker) : null;
  }
  return helper?.usable ? helper : null;
}

function startHelper(found: { wasm: ScanExports; arena: Arena }, worker: URL): ScanHelper | null {
  let area: number;
  try {
    area = found.arena.allocate(AREA_BYTES);
  } catch {
    return null; // the memory could not grow: no helper
  }
  return new ScanHelper(worker, found.wasm.memory, area);
}

/** Whether vectors of this many dimensions get int8 codes (WebAssembly SIMD available, at most 4,096). */
export const int8Available = (dimensions: number): boolean =>
  dimensions > 0 && dimensions <= 4096 && module() !== null;

/** Each row of codes (and the query) is padded with zeros to a multiple of 16, the module's step. */
const strideOf = (dimensions: number): number => Math.ceil(dimensions / 16) * 16;
/** A group's bytes: its four rows' codes, then their scales (float32). */
export const groupBytes = (stride: number): number => 4 * stride + 16;
/** The bytes of `count` rows' codes and scales: whole groups of four rows (the last padded with zero rows). */
const blockBytes = (count: number, stride: number): number => Math.ceil(count / 4) * groupBytes(stride);

/** Writes each piece's rows' codes and scales into a block's memory; returns the largest scale. */
function encodeRows(
  pieces: Iterable<{ readonly row: number; readonly floats: Float32Array }>,
  count: number,
  dimensions: number,
  stride: number,
  codes: Int8Array,
  groupScales: Float32Array,
  scales: Float64Array,
): number {
  let maxScale = 0;
  for (const { row: firstRow, floats: packed } of pieces) {
    const rows = Math.min(Math.floor(packed.length / dimensions), count - firstRow);
    for (let row = firstRow; row < firstRow + rows; row++) {
      const offset = (row - firstRow) * dimensions;
      let max = 0;
      for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(packed[offset + d]!));
      const scale = max / 127;
      scales[row] = scale;
      maxScale = Math.max(maxScale, scale);
      // Row r of group g: its codes d … d + 15 at groupBytes·g + 64·(d / 16) + 16·r, its scale at groupBytes·g +
      // 4·stride + 4·r (the module's layout).
      const group = (row >> 2) * groupBytes(stride);
      groupScales[(group + 4 * stride) / 4 + (row & 3)] = scale;
      if (scale === 0) continue;
      const base = group + (row & 3) * 16;
      for (let d = 0; d < dimensions; d++)
        codes[base + (d >> 4) * 64 + (d & 15)] = Math.round(packed[offset + d]! / scale);
    }
  }
  return maxScale;
}

/** One document's vectors as int8 codes in the module's memory, until released. */
export class Int8Block {
  private released = false;

  private constructor(
    readonly at: number,
    readonly count: number,
    readonly dimensions: number,
    readonly stride: number,
    /** Per vector: x ≈ scale × code. */
    readonly scales: Float64Array,
    /** The largest of the scales. */
    readonly maxScale: number,
  ) {}

  /** The codes of `count` unit vectors of `packed`; null where int8Available(dimensions) is false or memory ran out. */
  static encode(packed: Float32Array, count: number, dimensions: number): Int8Block | null {
    return Int8Block.encodePieces([{ row: 0, floats: packed }], count, dimensions);
  }

  /**
   * The codes of `count` unit vectors given in pieces (each piece's vectors from row `row` on, in any order, together
   * every row once), so that a document's floats need not be held whole to be encoded.
   */
  static encodePieces(
    pieces: Iterable<{ readonly row: number; readonly floats: Float32Array }>,
    count: number,
    dimensions: number,
  ): Int8Block | null {
    const found = int8Available(dimensions) ? module() : null;
    if (!found) return null;
    const stride = strideOf(dimensions);
    let at: number;
    try {
      at = found.arena.allocate(blockBytes(count, stride));
    } catch {
      // The module's memory could not grow (address space, or the 4 GiB limit): these vectors are scanned exactly.
      return null;
    }
    const codes = new Int8Array(found.wasm.memory.buffer, at, blockBytes(count, stride));
    codes.fill(0);
    const groupScales = new Float32Array(found.wasm.memory.buffer, at, blockBytes(count, stride) / 4);
    const scales = new Float64Array(count);
    let maxScale: number;
    try {
      maxScale = encodeRows(pieces, count, dimensions, stride, codes, groupScales, scales);
    } catch (error) {
      found.arena.release(at, blockBytes(count, stride));
      throw error;
    }
    return new Int8Block(at, count, dimensions, stride, scales, maxScale);
  }

  /** Gives the memory back (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    // A run not passed over yet may hold it: its codes are read before the memory can be handed out again.
    pending.scan?.pass();
    module()!.arena.release(this.at, blockBytes(this.count, this.stride));
  }

  /** The number of bytes it holds. */
  get bytes(): number {
    return blockBytes(this.count, this.stride) + this.scales.byteLength;
  }
}

/** Up to BATCH rows of a block, from row `from`: `groups` groups of four rows from byte `at`. */
interface RunPiece {
  readonly block: Int8Block;
  readonly floats: RowFloats;
  readonly first: number;
  readonly keep: ((id: number) => boolean) | undefined;
  readonly from: number;
  readonly count: number;
  readonly at: number;
  readonly groups: number;
}

/**
 * A block's floats for the exact scores: all of them (row r at r × dimensions), or a reader of one row's vector
 * (called only for a row scored exactly, once per row so scored: it should remember what it read).
 */
export type RowFloats = Float32Array | ((row: number) => Float32Array);

/** A run's pieces, passed over in one call of the module once the threshold is set (see Int8Scan.pass). */
interface Segment {
  readonly pieces: readonly RunPiece[];
  readonly groups: number;
  /** The largest scale of its rows. */
  readonly maxScale: number;
}

/**
 * Blocks to be offered together, cut once into the pieces and runs `offer` would make of them one by one: a search
 * that offers the same documents again (an Agent's, while its index and the vector cache are unchanged) offers the
 * run, and its JavaScript is per run of about ten documents, not per document. Each block's floats are kept whole
 * (no reader: what a reader remembers is one scan's).
 */
export class Int8Run {
  private constructor(
    readonly segments: readonly Segment[],
    readonly blocks: number,
  ) {}

  static of(
    parts: readonly { readonly block: Int8Block; readonly floats: Float32Array; readonly first: number }[],
  ): Int8Run {
    const segments: Segment[] = [];
    let pieces: RunPiece[] = [];
    let groups = 0;
    const close = () => {
      if (pieces.length > 0) segments.push({ pieces, groups, maxScale: maxScaleOf(pieces) });
      pieces = [];
      groups = 0;
    };
    for (const { block, floats, first } of parts)
      for (const piece of piecesOf(block, floats, first, undefined)) {
        const last = pieces[pieces.length - 1];
        if (last && !continues(last, piece, groups)) close();
        pieces.push(piece);
        groups += piece.groups;
      }
    close();
    return new Int8Run(segments, parts.length);
  }
}

/** A block's pieces of up to BATCH rows each. */
function piecesOf(
  block: Int8Block,
  floats: RowFloats,
  first: number,
  keep: ((id: number) => boolean) | undefined,
): RunPiece[] {
  const pieces: RunPiece[] = [];
  for (let from = 0; from < block.count; from += BATCH) {
    const count = Math.min(BATCH, block.count - from);
    const at = block.at + (from / 4) * groupBytes(block.stride);
    pieces.push({ block, floats, first, keep, from, count, at, groups: Math.ceil(count / 4) });
  }
  return pieces;
}

/** The largest scale of the pieces' rows. */
const maxScaleOf = (pieces: readonly RunPiece[]): number =>
  pieces.reduce((max, piece) => Math.max(max, piece.block.maxScale), 0);

/** Whether `piece` may join the run ending with `last` (holding `groups` groups): end to end, same stride, room left. */
const continues = (last: RunPiece, piece: RunPiece, groups: number): boolean =>
  last.at + last.groups * groupBytes(last.block.stride) === piece.at &&
  last.block.stride === piece.block.stride &&
  groups + piece.groups <= RUN_GROUPS;

/**
 * The exact best `capacity` (id, score) candidates of the blocks offered, found through their int8 codes: `offer`
 * keeps every vector whose upper bound reaches the `capacity`-th best lower bound seen so far, `exact` then scores
 * those exactly and hands them, best or not, to `into` (whose own capacity does the final cut).
 */
export class Int8Scan {
  private readonly query16: Int16Array;
  /**
   * Per unit of a vector's scale: the factor of its integer dot, the error bound of its approximate score, and the
   * largest term the module's float32 bound adds (its rounding is a share of that).
   */
  private readonly factors: BoundFactors;
  private readonly lowers: LowerBounds;
  private keptIds: number[] = [];
  private keptUppers: number[] = [];
  private keptSources: RowFloats[] = [];
  private keptRows: number[] = [];
  private queryCopied = false;
  /**
   * The pieces of blocks offered and not yet passed over, end to end in the module's memory: at most RUN_GROUPS groups,
   * or one piece of up to BATCH rows (what the module's output area holds).
   */
  private run: RunPiece[] = [];
  private runGroups = 0;
  private scored = 0;
  private handedBack = 0;
  private helperSegments = 0;
  /** The runs put off to the scan's end (see closeRun), and their groups. */
  private deferred: Segment[] = [];
  private deferredGroups = 0;

  constructor(
    private readonly query: Float32Array,
    capacity: number,
  ) {
    const dimensions = query.length;
    let max = 0;
    let norm1 = 0;
    for (const value of query) {
      max = Math.max(max, Math.abs(value));
      norm1 += Math.abs(value);
    }
    // The integer dot product must fit in an int32: |k| · 127 · dimensions < 2³¹.
    const limit = Math.min(32767, Math.floor(2 ** 31 / (127 * dimensions)) - 1);
    const step = max === 0 ? 1 : max / limit;
    this.query16 = new Int16Array(strideOf(dimensions));
    let codes1 = 0;
    for (let d = 0; d < dimensions; d++) {
      this.query16[d] = Math.round(query[d]! / step);
      codes1 += Math.abs(this.query16[d]!);
    }
    // A hair of slack for the float64 arithmetic of the bound itself and of the exact scores.
    const errorPerScale = ((norm1 + step * 127 * dimensions) / 2) * (1 + 1e-9) + 1e-12;
    // |dot| ≤ 127 · Σ|k_i|: the bound's terms are at most scale · (dotPerScale · that + errorPerScale).
    this.factors = { dotPerScale: step, errorPerScale, extentPerScale: step * 127 * codes1 + errorPerScale };
    this.lowers = new LowerBounds(capacity);
  }

  /**
   * Offers the block's rows (ids first + row); `floats` holds the same vectors for the exact scores, or reads a row's
   * (see RowFloats);
   * `keep` filters rows (a tag filter). The rows are passed over later, with the blocks offered next to them in the
   * module's memory, in one call of the module (see `pass`).
   */
  offer(block: Int8Block, floats: RowFloats, first: number, keep?: (id: number) => boolean): void {
    // One run is pending at a time: another scan's (one abandoned by its caller) is passed over first.
    if (pending.scan !== this) pending.scan?.pass();
    pending.scan = this;
    for (const piece of piecesOf(block, floats, first, keep)) this.add(piece);
  }

  /**
   * Offers a prepared run's blocks (Int8Run), as `offer` would one by one: a piece at a time until the threshold is
   * set, then its runs whole.
   */
  offerRun(prepared: Int8Run): void {
    if (pending.scan !== this) pending.scan?.pass();
    pending.scan = this;
    const { segments } = prepared;
    let next = 0;
    for (; next < segments.length && this.lowers.threshold === Number.NEGATIVE_INFINITY; next++)
      for (const piece of segments[next]!.pieces) this.add(piece);
    // What the first pieces left pending, then each segment, a run of its own: put off to the scan's end (settle).
    if (this.run.length > 0) this.closeRun();
    for (const segment of segments.slice(next)) {
      this.deferred.push(segment);
      this.deferredGroups += segment.groups;
    }
  }

  private passSegment(segment: Segment): void {
    this.run = segment.pieces.slice();
    this.runGroups = segment.groups;
    this.passRun(segment.maxScale);
  }

  /**
   * The current run ends: once a threshold is set it is put off to the scan's end (settle), where the runs put off may
   * be passed over by this thread and the helper side by side; before, or with a row filter (the helper's threshold
   * would count the rows it leaves out), it is passed over now.
   */
  private closeRun(): void {
    if (this.lowers.threshold === Number.NEGATIVE_INFINITY || this.run.some((piece) => piece.keep)) {
      this.passRun();
      return;
    }
    const pieces = this.run;
    this.deferred.push({ pieces, groups: this.runGroups, maxScale: maxScaleOf(pieces) });
    this.deferredGroups += this.runGroups;
    this.run = [];
    this.runGroups = 0;
  }

  /** Passes over what is left: with the helper when the runs put off are many, otherwise here, in order. */
  private settle(): void {
    if (this.run.length > 0) this.closeRun();
    if (this.deferredGroups >= HELPER_MIN_GROUPS) {
      const found = scanHelper();
      if (found) {
        const deferred = this.deferred;
        this.deferred = [];
        this.deferredGroups = 0;
        if (pending.scan === this) pending.scan = null;
        this.shareWith(found, deferred);
        return;
      }
    }
    this.pass();
  }

  /**
   * The segments passed over by this thread and the helper side by side (int8-helper.ts); the groups the helper
   * hands back are checked here, segment by segment, as this thread's own are.
   */
  private shareWith(found: ScanHelper, segments: readonly Segment[]): void {
    const memory = views(module()!.wasm);
    const shared = found.post(
      segments.map((segment) => ({
        at: segment.pieces[0]!.at,
        groups: segment.groups,
        maxScale: segment.maxScale,
      })),
      this.query16,
      { ...this.factors, seed: this.lowers.threshold, capacity: this.lowers.capacity },
      memory,
    );
    const mine = new Set<number>();
    for (let segment = found.claim(); segment >= 0; segment = found.claim()) {
      mine.add(segment);
      this.passSegment(segments[segment]!);
    }
    for (let segment = shared; segment < segments.length; segment++) this.passSegment(segments[segment]!);
    const outcome = found.finish();
    if ('abandoned' in outcome) {
      for (let segment = 0; segment < shared; segment++)
        if (!mine.has(segment)) this.passSegment(segments[segment]!);
      return;
    }
    this.helperSegments = shared - mine.size - (outcome.failed >= 0 ? 1 : 0);
    const { int32s } = memory;
    const first = outcome.out >> 2;
    const end = first + (ENTRY_BYTES >> 2) * outcome.entries;
    // Each segment's groups lie together, in order.
    for (let from = first; from < end;) {
      const segment = int32s[from + 5]!;
      let to = from + 8;
      while (to < end && int32s[to + 5] === segment) to += 8;
      this.check(segments[segment]!.pieces, int32s, from, (to - from) >> 3);
      from = to;
    }
    if (outcome.failed >= 0) this.passSegment(segments[outcome.failed]!);
  }

  private add(piece: RunPiece): void {
    const last = this.run[this.run.length - 1];
    if (last && !continues(last, piece, this.runGroups)) this.closeRun();
    this.run.push(piece);
    this.runGroups += piece.groups;
    // Until `capacity` rows are kept there is no threshold and every group comes back: a document at a time.
    if (this.lowers.threshold === Number.NEGATIVE_INFINITY) this.passRun();
  }

  /**
   * Passes over everything offered and not passed over yet, here: the runs put off (in order), then the current one
   * (a block about to be released, or another scan's offer, needs its codes read now).
   */
  pass(): void {
    if (this.deferred.length > 0) {
      const current = this.run;
      const currentGroups = this.runGroups;
      const deferred = this.deferred;
      this.deferred = [];
      this.deferredGroups = 0;
      for (const segment of deferred) this.passSegment(segment);
      this.run = current;
      this.runGroups = currentGroups;
    }
    this.passRun();
  }

  /**
   * One call of the module over the pieces of blocks offered since the last call, which lie end to end in its memory:
   * at 100,000 chunks in documents of 100 rows, a call and its JavaScript per document cost a third of the scan.
   */
  private passRun(maxScale = maxScaleOf(this.run)): void {
    const run = this.run;
    const groups = this.runGroups;
    if (run.length === 0) return;
    // Taken first: a block released while its rows are checked finds no run to pass over again.
    this.run = [];
    this.runGroups = 0;
    if (pending.scan === this && this.deferred.length === 0) pending.scan = null;
    const { wasm } = module()!;
    const stride = run[0]!.block.stride;
    // The query is copied into the module's memory once per scan: nothing else runs the module until it ends.
    if (!this.queryCopied) {
      new Int16Array(wasm.memory.buffer, QUERY_AT, stride).set(this.query16);
      this.queryCopied = true;
    }
    const { int32s, float32s } = views(wasm);
    // The threshold only rises as rows are kept, and each row handed back is checked against it exactly here.
    const call = { query: QUERY_AT, codes: run[0]!.at, groups, stride, out: OUT_AT };
    const passed = callDots(wasm, float32s, call, this.lowers.threshold, maxScale, this.factors);
    this.check(run, int32s, OUT_AT >> 2, passed);
  }

  /**
   * The rows of `passed` groups the module handed back for `run` (from int32 `from` of the memory: four dots and the
   * run's group, 32 bytes each, in order), checked against the threshold exactly: those that may be among the best
   * are kept, their lower bounds raise the threshold.
   */
  private check(run: readonly RunPiece[], memory: Int32Array, from: number, passed: number): void {
    const { dotPerScale, errorPerScale } = this.factors;
    const { lowers } = this;
    let threshold = lowers.threshold;
    this.handedBack += passed;
    // The groups come back in order: the piece holding each is found by walking the run once.
    let piece = 0;
    let pieceGroups = 0;
    for (let at = from; at < from + 8 * passed; at += 8) {
      const runGroup = memory[at + 4]!;
      while (runGroup >= pieceGroups + run[piece]!.groups) pieceGroups += run[piece++]!.groups;
      const { block, floats, first, keep, from, count } = run[piece]!;
      const group = runGroup - pieceGroups;
      // The last group's padding rows (zero codes) are not rows of the block.
      for (let i = 4 * group; i < Math.min(4 * group + 4, count); i++) {
        const row = from + i;
        const scale = block.scales[row]!;
        const approximate = dotPerScale * scale * memory[at + i - 4 * group]!;
        const error = errorPerScale * scale;
        const upper = approximate + error;
        if (upper < threshold) continue;
        const id = first + row;
        if (keep && !keep(id)) continue;
        lowers.offer(approximate - error);
        threshold = lowers.threshold;
        this.keptIds.push(id);
        this.keptUppers.push(upper);
        this.keptSources.push(floats);
        this.keptRows.push(row);
      }
    }
  }

  /**
   * Scores exactly the kept vectors that may still be among the best, into `into`: highest bound first, until
   * `into` admits none at the next one's bound (a vector's exact score is at most its bound, and the rest are lower).
   */
  exact(into: { offer(id: number, score: number): void; admits(score: number): boolean }): void {
    this.settle();
    const threshold = this.lowers.threshold;
    const uppers = this.keptUppers;
    const order: number[] = [];
    for (let i = 0; i < uppers.length; i++) if (uppers[i]! >= threshold) order.push(i);
    order.sort((a, b) => uppers[b]! - uppers[a]!);
    this.scored = 0;
    for (const i of order) {
      if (!into.admits(uppers[i]!)) break;
      const source = this.keptSources[i]!;
      const row = this.keptRows[i]!;
      const score =
        typeof source === 'function'
          ? dotAt(source(row), 0, this.query)
          : dotAt(source, row * this.query.length, this.query);
      into.offer(this.keptIds[i]!, score);
      this.scored++;
    }
  }

  /** How many vectors the last `exact` scored (for tests and measurements). */
  get rescored(): number {
    return this.scored;
  }

  /** How many groups of four rows the module has handed back to be checked here (for tests and measurements). */
  get groupsHandedBack(): number {
    return this.handedBack;
  }

  /** How many segments of its run the helper thread passed over for this scan (for tests and measurements). */
  get segmentsHelped(): number {
    return this.helperSegments;
  }
}

/** The `capacity` largest values offered: `threshold` is the smallest of them once full, -Infinity before. */
export class LowerBounds {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(readonly capacity: number) {
    this.heap = new Float64Array(Math.max(1, capacity));
  }

  get threshold(): number {
    return this.capacity > 0 && this.size === this.capacity ? this.heap[0]! : Number.NEGATIVE_INFINITY;
  }

  offer(value: number): void {
    if (this.capacity === 0) return;
    const heap = this.heap;
    if (this.size < this.capacity) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent]! <= value) break;
        heap[i] = heap[parent]!;
        i = parent;
      }
      heap[i] = value;
      return;
    }
    if (value <= heap[0]!) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && heap[right]! < heap[left]! ? right : left;
      if (heap[child]! >= value) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = value;
  }
}
