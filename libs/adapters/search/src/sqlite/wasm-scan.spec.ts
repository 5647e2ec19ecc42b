import { dotAt, packVectors, unitVector, unpackVectors } from './packed-vectors.js';
import { VectorScanner } from './wasm-scan.js';

describe('VectorScanner', () => {
  let seed = 11;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
  const block = (count: number, dimensions: number) =>
    unpackVectors(
      packVectors(
        Array.from({ length: count }, () => Array.from({ length: dimensions }, random)),
        dimensions,
      ),
    );
  const query = (dimensions: number) => unitVector(Array.from({ length: dimensions }, random))!;

  it('scores exactly as dotAt does, in WebAssembly when the dimensions are a multiple of four', () => {
    const q = query(384);
    const scanner = new VectorScanner(q);
    expect(scanner.accelerated).toBe(true);
    for (const count of [1, 7, 50, 400]) {
      const packed = block(count, 384);
      const scores = Array.from(scanner.score(packed, count));
      expect(scores).toEqual(Array.from({ length: count }, (_, i) => dotAt(packed, i * 384, q)));
    }
  });

  it('keeps each scanner on its own query when scanners interleave', () => {
    const a = query(8);
    const b = query(8);
    const packed = block(5, 8);
    const first = new VectorScanner(a);
    const second = new VectorScanner(b);
    for (let round = 0; round < 2; round++) {
      expect(Array.from(first.score(packed, 5))).toEqual([0, 1, 2, 3, 4].map((i) => dotAt(packed, i * 8, a)));
      expect(Array.from(second.score(packed, 5))).toEqual(
        [0, 1, 2, 3, 4].map((i) => dotAt(packed, i * 8, b)),
      );
    }
  });

  it('falls back to the JavaScript scan for other dimension counts, with the same scores', () => {
    const q = query(7);
    const scanner = new VectorScanner(q);
    expect(scanner.accelerated).toBe(false);
    const packed = block(9, 7);
    expect(Array.from(scanner.score(packed, 9).subarray(0, 9))).toEqual(
      Array.from({ length: 9 }, (_, i) => dotAt(packed, i * 7, q)),
    );
  });
});
