// The vector leg with a cache too small for the floats: the int8 codes stay resident, the rows they leave to score
// exactly are read back from the documents' BLOBs, and every ranking and score is still the exact scan's (an index
// without a cache), tag filters and other owners' documents included.
import { seededRandom } from '#kernel';
import { testChunk } from '../search-index.contract.js';
import type { SearchQuery } from '../search-index.port.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const DIMENSIONS = 64;
const DOCUMENTS = 12;
const CHUNKS_PER_DOCUMENT = 50;

describe('SqliteSearchIndex vector cache holding codes only', () => {
  it('ranks and scores as the exact scan, tag filter and owners included, search after search', async () => {
    const random = seededRandom(7);
    const vector = () => Array.from({ length: DIMENSIONS }, () => random() * 2 - 1);
    // All the codes (600 × 64 bytes and 12 of scale each: 46 KB) fit, the floats beside them (154 KB) do not.
    const small = new SqliteSearchIndex({ path: ':memory:', vectorCacheBytes: 64 * 1024 });
    const uncached = new SqliteSearchIndex({ path: ':memory:', vectorCacheBytes: 0 });
    try {
      for (const index of [small, uncached]) await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
      for (let d = 0; d < DOCUMENTS; d++) {
        const chunks = Array.from({ length: CHUNKS_PER_DOCUMENT }, (_, n) => ({
          ...testChunk(d % 3 === 0 ? 'agt_2' : 'agt_1', `doc${d}`, n, `chunk ${d} ${n}`, vector()),
          tagIds: n % 4 === 0 ? ['red'] : [],
        }));
        for (const index of [small, uncached]) await index.upsertDocument('chunks_v1', `doc${d}`, 1, chunks);
      }
      const queries: SearchQuery[] = Array.from({ length: 20 }, (_, i) => ({
        text: '',
        embedding: vector(),
        ownerIds: i % 2 === 0 ? ['agt_1'] : ['agt_1', 'agt_2'],
        ...(i % 5 === 0 ? { tagIds: ['red'] } : {}),
        limit: 10,
        mode: 'vector' as const,
      }));
      // Twice: the first round fills the cache (and gives up the floats), the second reads the codes it kept.
      for (let round = 0; round < 2; round++)
        for (const query of queries) {
          const served = await small.search('chunks_v1', query);
          const truth = await uncached.search('chunks_v1', query);
          expect(served).toHaveLength(10);
          expect(served.map((hit) => [hit.chunkId, hit.score])).toEqual(
            truth.map((hit) => [hit.chunkId, hit.score]),
          );
        }
    } finally {
      await small.close();
      await uncached.close();
    }
  });
});
