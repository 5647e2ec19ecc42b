// This machine's floor for the vector leg at a size: the int8 first pass (int8-scan.ts, the same WebAssembly SIMD
// module and bound the api runs) alone over as many codes, in this process, with nothing else around it (no HTTP, no
// SQLite, no BM25 leg). The codes are of random unit vectors in blocks of 1,000 (the bench documents' size at a
// million chunks); the pass reads every code once per query, so its time is bound by memory bandwidth.
import { seededRandom } from '#kernel';
import { Int8Block, Int8Scan } from '#search/sqlite/int8-scan';
import { TopScores, unitVector } from '#search/sqlite/packed-vectors';
import { median } from './util.js';

const BLOCK = 1000;

/** The p50 in ms of `passes` int8 passes over `chunks` codes of `dimensions` (after one pass that warms the pages). */
export function int8PassFloor(chunks: number, dimensions: number, passes = 7): number {
  const random = seededRandom(11);
  const unit = () => unitVector(Array.from({ length: dimensions }, () => random() * 2 - 1))!;
  const floats = new Float32Array(BLOCK * dimensions);
  for (let row = 0; row < BLOCK; row++) floats.set(unit(), row * dimensions);
  const blocks: Int8Block[] = [];
  try {
    for (let at = 0; at < chunks; at += BLOCK) {
      const block = Int8Block.encode(floats, Math.min(BLOCK, chunks - at), dimensions);
      if (!block) throw new Error('no int8 codes on this machine (WebAssembly SIMD missing)');
      blocks.push(block);
    }
    const times: number[] = [];
    for (let pass = 0; pass <= passes; pass++) {
      const query = unit();
      const started = performance.now();
      const scan = new Int8Scan(query, 50);
      for (const [i, block] of blocks.entries()) scan.offer(block, floats, i * BLOCK);
      scan.exact(new TopScores(50));
      if (pass > 0) times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    for (const block of blocks) block.release();
  }
}
