import { eachOrdinal, GROUP, packOrdinals, walkOrdinals } from './bm25-packed.js';

/** Terms' ascending ordinals with gaps of every encoded length, laid out as a sealed block's offsets and ordinals. */
const block = (terms: readonly (readonly number[])[]) => {
  const offsets = new Uint32Array(terms.length + 1);
  terms.forEach((ordinals, t) => (offsets[t + 1] = offsets[t]! + ordinals.length));
  return { offsets, ordinals: Int32Array.from(terms.flat()) };
};

let seed = 11;
const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;

/** `count` ascending ordinals from `start`, each gap drawn below one of the bounds. */
const ascending = (count: number, start: number, bounds: readonly number[]): number[] => {
  const out: number[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    out.push(at);
    at += 1 + Math.floor(random() * bounds[i % bounds.length]!);
  }
  return out;
};

describe('packed BM25 ordinals', () => {
  const terms = [
    [],
    [5],
    ascending(GROUP, 0, [1]), // one full group
    ascending(GROUP + 1, 3, [2]), // a group of one after a full one
    ascending(5 * GROUP + 17, 0, [1, 3, 200, 20_000, 3_000_000]), // gaps of one to four bytes
    [0, 2 ** 28 + 5, 2 ** 31 - 2], // five-byte gaps
    ascending(1000, 7, [2]),
  ];
  const { offsets, ordinals } = block(terms);
  const packed = packOrdinals(offsets, ordinals);

  it('gives back every term’s ordinals in order, with their postings’ indexes', () => {
    terms.forEach((expected, t) => {
      const seen: [number, number][] = [];
      eachOrdinal(packed, t, offsets[t]!, (ordinal, j) => seen.push([ordinal, j]));
      expect(seen).toEqual(expected.map((ordinal, rank) => [ordinal, offsets[t]! + rank]));
    });
    expect(packed.starts.at(-1)).toBe(packed.gaps.length);
    // Most gaps of a dense term take a byte: well under Int32Array's four per posting.
    expect(packed.gaps.byteLength + packed.firsts.byteLength * 2).toBeLessThan(ordinals.byteLength);
  });

  it('finds the rows a term holds among ascending rows, skipping groups, as a linear search does', () => {
    terms.forEach((held, t) => {
      const last = held.at(-1) ?? 10;
      for (const density of [0.001, 0.05, 0.5]) {
        const rows: number[] = [];
        // Rows the term holds and rows between and past them (before the first, after the last).
        for (const ordinal of held) if (random() < density * 4) rows.push(ordinal);
        for (let i = 0; i < 200; i++) rows.push(Math.floor(random() * (last + 50)));
        const sorted = Int32Array.from(new Set(rows)).sort();
        const found: [number, number][] = [];
        walkOrdinals(packed, t, offsets[t]!, sorted, (j, i) => found.push([j, i]));
        const expected: [number, number][] = [];
        sorted.forEach((row, i) => {
          const rank = held.indexOf(row);
          if (rank >= 0) expected.push([offsets[t]! + rank, i]);
        });
        expect(found).toEqual(expected);
      }
    });
  });
});
