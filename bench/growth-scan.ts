// The api's exact vector scan alone at a size, in this process: int8 codes of as many unit vectors in documents of
// 100 (the cache's blocks), searched as the vector leg searches them (int8-scan.ts: the codes' pass, then the
// survivors scored from their floats). Beside growth-floor.ts's one SIMD pass over as many bytes, it shows what the
// scan adds to the machine's memory bandwidth, without the api's HTTP, BM25 leg and fusion around it. The floats are
// kept up to KEPT_FLOATS vectors (as the api's cache keeps them by default: 1.5 GB in this process at a million);
// above, a survivor's document is generated again from its seed (slower than the api reading its segment back: the
// figure is then an upper bound; at a million chunks with 250,000 kept it was 43 ms instead of 17.6).
import { seededRandom } from '#kernel';
import { Int8Block, int8Available, Int8Scan } from '#search/sqlite/int8-scan';
import { TopScores } from '#search/sqlite/packed-vectors';
import { median } from './util.js';

const PER_DOCUMENT = 100;
const KEPT_FLOATS = 1_000_000;

/** A topic's direction: embeddings of text on one topic lie near each other. */
const TOPICS = 64;
const topics = new Map<number, Float32Array>();
function topic(n: number, dimensions: number): Float32Array {
  let found = topics.get(n);
  if (!found || found.length !== dimensions) {
    const random = seededRandom(1_000_003 + n);
    found = Float32Array.from({ length: dimensions }, () => random() * 2 - 1);
    topics.set(n, found);
  }
  return found;
}

/**
 * `count` unit vectors of `dimensions` around the seed's topic (random ones all score about 0 against a query, and
 * no first pass can tell them apart), the same for the same seed.
 */
function unitVectors(seed: number, count: number, dimensions: number): Float32Array {
  const random = seededRandom(seed);
  const centre = topic(Math.abs(seed) % TOPICS, dimensions);
  const vectors = new Float32Array(count * dimensions);
  for (let row = 0; row < count; row++) {
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      const value = centre[d]! + (random() * 2 - 1);
      vectors[row * dimensions + d] = value;
      norm += value * value;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let d = 0; d < dimensions; d++) vectors[row * dimensions + d]! *= scale;
  }
  return vectors;
}

/**
 * Searches run before the timed ones, with queries of their own: the scan's JavaScript reaches its optimised code
 * only after several searches (measured: the first 5–10 took 3–12 ms at 100k chunks, then ≈2.2), while the floor's
 * one loop is optimised at once. The api searches its cache all day: its steady state is what this row compares.
 */
const WARMUP_SEARCHES = 10;

/** The p50 in ms of `searches` exact scans (best `candidates`) over `chunks` vectors' codes, after the warm-up. */
export function int8ScanP50(chunks: number, dimensions: number, searches = 15, candidates = 50): number {
  if (!int8Available(dimensions)) throw new Error('no WebAssembly SIMD on this machine');
  const blocks: Int8Block[] = [];
  const kept: Float32Array[] = [];
  try {
    for (let first = 0; first < chunks; first += PER_DOCUMENT) {
      const count = Math.min(PER_DOCUMENT, chunks - first);
      const floats = unitVectors(first + 1, count, dimensions);
      const block = Int8Block.encode(floats, count, dimensions);
      if (!block) throw new Error('the int8 codes did not fit in the WebAssembly memory');
      blocks.push(block);
      if (chunks <= KEPT_FLOATS) kept.push(floats);
    }
    const times: number[] = [];
    for (let search = -WARMUP_SEARCHES; search < searches; search++) {
      const query = unitVectors(search < 0 ? -1000 + search : -2 - search, 1, dimensions);
      const started = performance.now();
      const scan = new Int8Scan(query, candidates);
      for (const [n, block] of blocks.entries()) {
        const first = n * PER_DOCUMENT;
        let floats: Float32Array | null = kept[n] ?? null;
        scan.offer(
          block,
          floats ??
            ((row: number) => {
              floats ??= unitVectors(first + 1, block.count, dimensions);
              return floats.subarray(row * dimensions, (row + 1) * dimensions);
            }),
          first,
        );
      }
      const top = new TopScores(candidates);
      scan.exact(top);
      top.best();
      if (search >= 0) times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    for (const block of blocks) block.release();
  }
}
