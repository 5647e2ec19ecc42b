import { dotAt, packVectors, scoreVectors, TopScores, unitVector, unpackVectors } from './packed-vectors.js';

describe('packed vectors', () => {
  it('scores a block of vectors exactly as dotAt does, for odd counts and dimensions', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
    for (const [count, dimensions] of [
      [1, 8],
      [5, 7],
      [6, 384],
      [3, 2],
    ] as const) {
      const vectors = Array.from({ length: count }, () => Array.from({ length: dimensions }, random));
      const packed = unpackVectors(packVectors(vectors, dimensions));
      const query = unitVector(Array.from({ length: dimensions }, random))!;
      const out = new Float64Array(count + 1);
      scoreVectors(packed, count, Float64Array.from(query), out);
      for (let i = 0; i < count; i++) expect(out[i]).toBe(dotAt(packed, i * dimensions, query));
      expect(out[count]).toBe(0);
    }
  });

  it('stores unit-length vectors, so a dot product is the cosine similarity', () => {
    const packed = unpackVectors(
      packVectors(
        [
          [3, 4, 0],
          [0, 0, 0],
          [0, 0, 2],
        ],
        3,
      ),
    );
    expect(Array.from(packed)).toEqual([0.6000000238418579, 0.800000011920929, 0, 0, 0, 0, 0, 0, 1]);
    const query = unitVector([6, 8, 0])!;
    expect(dotAt(packed, 0, query)).toBeCloseTo(1, 6);
    expect(dotAt(packed, 3, query)).toBe(0);
    expect(dotAt(packed, 6, query)).toBe(0);
    expect(unitVector([0, 0])).toBeNull();
  });

  it('reads a BLOB at any byte offset, little-endian', () => {
    const bytes = packVectors([[1, 2, 3, 4, 5]], 5);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const unaligned = unpackVectors(shifted.subarray(1));
    expect(Array.from(unaligned)).toEqual(Array.from(unpackVectors(bytes)));
    expect(new DataView(bytes.buffer).getFloat32(0, true)).toBeCloseTo(1 / Math.sqrt(55), 6);
  });

  it('computes dot products of any dimension (the unrolled loop and its remainder)', () => {
    for (const dimensions of [1, 3, 4, 7, 384]) {
      const a = Array.from({ length: dimensions }, (_, i) => Math.sin(i + 1));
      const b = Array.from({ length: dimensions }, (_, i) => Math.cos(i * 2));
      const expected = a.reduce((sum, value, i) => sum + value * b[i]!, 0);
      expect(dotAt(Float32Array.from([9, ...a]), 1, Float32Array.from(b))).toBeCloseTo(expected, 4);
    }
  });

  it('keeps the best scores, ties to the smaller id, as a full sort would', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    for (const capacity of [0, 1, 5, 50]) {
      const offered = Array.from({ length: 500 }, (_, id) => ({ id, score: Math.round(random() * 40) / 40 }));
      const top = new TopScores(capacity);
      for (const { id, score } of offered) top.offer(id, score);
      const expected = [...offered]
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, capacity)
        .map((item) => item.id);
      expect(top.best()).toEqual(expected);
    }
  });

  it('admits a score while there is room, then only one at least the worst kept (a tie may win by its id)', () => {
    const top = new TopScores(2);
    expect(top.admits(-5)).toBe(true);
    top.offer(1, 0.5);
    top.offer(2, 0.25);
    expect(top.admits(0.3)).toBe(true);
    expect(top.admits(0.25)).toBe(true);
    expect(top.admits(0.2)).toBe(false);
    expect(new TopScores(0).admits(1)).toBe(false);
  });
});
