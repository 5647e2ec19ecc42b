// The sealed BM25 postings' row ordinals, packed: each term's ordinals (ascending) in groups of GROUP, a group's first
// ordinal kept whole and the rest as the gaps from the one before, in LEB128 (7 bits a byte). Most gaps of a word
// many rows hold take one byte and those of a rare word two or three, against the four of an Int32Array: 86 million
// postings at a million chunks, 344 MB as Int32 ordinals. The groups' first ordinals let a walk in step with a few
// rows skip whole groups (galloping over them) and decode at most one group's gaps per row it looks for.

/** Ordinals per group: a group's first is kept whole (4 bytes, and 4 for where its gaps start). */
export const GROUP = 64;

export interface PackedOrdinals {
  /** Term t's groups are groupsOf[t] … groupsOf[t + 1] − 1. */
  readonly groupsOf: Uint32Array<ArrayBuffer>;
  /** Each group's first ordinal. */
  readonly firsts: Int32Array<ArrayBuffer>;
  /** Where each group's gaps start in `gaps` (one more entry: the end). */
  readonly starts: Uint32Array<ArrayBuffer>;
  readonly gaps: Uint8Array<ArrayBuffer>;
}

const gapBytes = (gap: number): number =>
  gap < 0x80 ? 1 : gap < 0x4000 ? 2 : gap < 0x20_0000 ? 3 : gap < 0x1000_0000 ? 4 : 5;

/** Where the gap readGap read last ends (a module's cursor: the decoders are synchronous). */
let gapEnd = 0;

/** The LEB128 gap at gaps[at …]; gapEnd is set to the byte after it. */
function readGap(gaps: Uint8Array, at: number): number {
  let byte = gaps[at++]!;
  let gap = byte & 0x7f;
  for (let shift = 7; byte & 0x80; shift += 7) {
    byte = gaps[at++]!;
    gap |= (byte & 0x7f) << shift;
  }
  gapEnd = at;
  return gap;
}

/** Packs `ordinals`, term t's ascending in ordinals[offsets[t]] … ordinals[offsets[t + 1] − 1]. */
export function packOrdinals(offsets: Uint32Array, ordinals: Int32Array): PackedOrdinals {
  const terms = offsets.length - 1;
  const groupsOf = new Uint32Array(terms + 1);
  let size = 0;
  for (let t = 0; t < terms; t++) {
    const from = offsets[t]!;
    const to = offsets[t + 1]!;
    groupsOf[t + 1] = groupsOf[t]! + Math.ceil((to - from) / GROUP);
    for (let j = from + 1; j < to; j++)
      if ((j - from) % GROUP !== 0) size += gapBytes(ordinals[j]! - ordinals[j - 1]!);
  }
  const groups = groupsOf[terms]!;
  const firsts = new Int32Array(groups);
  const starts = new Uint32Array(groups + 1);
  const gaps = new Uint8Array(size);
  let g = 0;
  let at = 0;
  for (let t = 0; t < terms; t++) {
    const from = offsets[t]!;
    for (let j = from, to = offsets[t + 1]!; j < to; j++) {
      if ((j - from) % GROUP === 0) {
        firsts[g] = ordinals[j]!;
        starts[g++] = at;
        continue;
      }
      let gap = ordinals[j]! - ordinals[j - 1]!;
      while (gap >= 0x80) {
        gaps[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      gaps[at++] = gap;
    }
  }
  starts[groups] = at;
  return { groupsOf, firsts, starts, gaps };
}

/** Decodes group g's ordinals into `out` (GROUP long); returns how many it holds. */
export function decodeGroup(packed: PackedOrdinals, g: number, out: Int32Array): number {
  const { firsts, starts, gaps } = packed;
  let ordinal = firsts[g]!;
  let at = starts[g]!;
  const stop = starts[g + 1]!;
  let n = 0;
  out[n++] = ordinal;
  while (at < stop) {
    ordinal += readGap(gaps, at);
    at = gapEnd;
    out[n++] = ordinal;
  }
  return n;
}

/**
 * Decodes term t's groups one at a time into `out` (GROUP long), calling `visit(n, j)` with each one's size and its first
 * posting's index (offsets[t] + its rank).
 */
export function eachGroup(
  packed: PackedOrdinals,
  term: number,
  first: number,
  out: Int32Array,
  visit: (n: number, j: number) => void,
): void {
  for (let g = packed.groupsOf[term]!, j = first, end = packed.groupsOf[term + 1]!; g < end; g++) {
    const n = decodeGroup(packed, g, out);
    visit(n, j);
    j += n;
  }
}

/** Calls `each(ordinal, j)` for term t's postings in order, j being the posting's index (offsets[t] + its rank). */
export function eachOrdinal(
  packed: PackedOrdinals,
  term: number,
  first: number,
  each: (ordinal: number, j: number) => void,
): void {
  const group = new Int32Array(GROUP);
  eachGroup(packed, term, first, group, (n, j) => {
    for (let k = 0; k < n; k++) each(group[k]!, j + k);
  });
}

/**
 * Calls `found(j, i)` for each of `rows` (ascending) that term t holds, j being its posting's index: one pass over
 * both, galloping over the groups that end before the next row, decoding within the group that may hold it.
 */
export function walkOrdinals(
  packed: PackedOrdinals,
  term: number,
  first: number,
  rows: Int32Array,
  found: (j: number, i: number) => void,
): void {
  const { groupsOf, firsts, starts, gaps } = packed;
  const start = groupsOf[term]!;
  const end = groupsOf[term + 1]!;
  if (start === end) return;
  let g = start;
  let ordinal = firsts[g]!;
  let at = starts[g]!;
  let j = first;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (ordinal < row) {
      if (g + 1 < end && firsts[g + 1]! <= row) {
        // The last group whose first ordinal is at most the row: gallop, then search between the last two probes.
        let low = g + 1;
        let step = 1;
        while (low + step < end && firsts[low + step]! <= row) {
          low += step;
          step *= 2;
        }
        let high = Math.min(low + step, end);
        while (low + 1 < high) {
          const middle = (low + high) >>> 1;
          if (firsts[middle]! <= row) low = middle;
          else high = middle;
        }
        g = low;
        ordinal = firsts[g]!;
        at = starts[g]!;
        j = first + (g - start) * GROUP;
      }
      const stop = starts[g + 1]!;
      while (ordinal < row && at < stop) {
        ordinal += readGap(gaps, at);
        at = gapEnd;
        j++;
      }
      if (ordinal < row) {
        // The group ends before the row: the next one starts after it (or there is none).
        if (++g === end) return;
        ordinal = firsts[g]!;
        at = starts[g]!;
        j = first + (g - start) * GROUP;
      }
    }
    if (ordinal === row) found(j, i);
  }
}

/** The packed arrays' bytes. */
export const packedBytes = (packed: PackedOrdinals): number =>
  packed.groupsOf.byteLength + packed.firsts.byteLength + packed.starts.byteLength + packed.gaps.byteLength;
