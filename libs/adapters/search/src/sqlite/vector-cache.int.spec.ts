// The vector leg with a cache too small for the floats: the int8 codes stay resident, the rows they leave to score
// exactly are read back from their segments (or from the document row's own BLOB, where an older file keeps them),
// and every ranking and score is still the exact scan's (an index without a cache), tag filters and other owners'
// documents included.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { jest } from '@jest/globals';
import { seededRandom } from '#kernel';
import { testChunk } from '../search-index.contract.js';
import type { SearchQuery } from '../search-index.port.js';
import { Int8Scan } from './int8-scan.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';
import { SEGMENT_VECTORS } from './vector-segments.js';

const DIMENSIONS = 64;
const DOCUMENTS = 12;
const CHUNKS_PER_DOCUMENT = 50;

/**
 * Each query ranks and scores as the index without a cache does, twice: the first round fills the cache (giving up
 * the floats), the second reads the codes it kept.
 */
async function sameAsExact(
  small: SqliteSearchIndex,
  uncached: SqliteSearchIndex,
  queries: readonly SearchQuery[],
): Promise<void> {
  for (let round = 0; round < 2; round++)
    for (const query of queries) {
      const served = await small.search('chunks_v1', query);
      const truth = await uncached.search('chunks_v1', query);
      expect(served).toHaveLength(10);
      expect(served.map((hit) => [hit.chunkId, hit.score])).toEqual(
        truth.map((hit) => [hit.chunkId, hit.score]),
      );
    }
}

describe('SqliteSearchIndex vector cache holding floats and codes', () => {
  afterEach(() => jest.restoreAllMocks());

  it('searches the same documents again through their prepared scan, and not once they changed', async () => {
    const random = seededRandom(13);
    const vector = () => Array.from({ length: DIMENSIONS }, () => random() * 2 - 1);
    const cached = new SqliteSearchIndex({ path: ':memory:' });
    const uncached = new SqliteSearchIndex({ path: ':memory:', vectorCacheBytes: 0 });
    const chunksOf = (d: number, version: number) =>
      Array.from({ length: CHUNKS_PER_DOCUMENT }, (_, n) =>
        testChunk(d % 3 === 0 ? 'agt_2' : 'agt_1', `doc${d}`, n, `chunk ${d} ${n} v${version}`, vector()),
      );
    try {
      for (const index of [cached, uncached])
        await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
      for (let d = 0; d < DOCUMENTS; d++) {
        const chunks = chunksOf(d, 1);
        for (const index of [cached, uncached]) await index.upsertDocument('chunks_v1', `doc${d}`, 1, chunks);
      }
      const queries: SearchQuery[] = Array.from({ length: 12 }, (_, i) => ({
        text: '',
        embedding: vector(),
        ownerIds: i % 2 === 0 ? ['agt_1'] : ['agt_1', 'agt_2'],
        limit: 10,
        mode: 'vector' as const,
      }));
      const prepared = jest.spyOn(Int8Scan.prototype, 'offerRun');
      // Each owner set's first search lists and caches its documents; every later one scans its prepared run
      // (sameAsExact asks each query twice).
      await sameAsExact(cached, uncached, queries);
      expect(prepared).toHaveBeenCalledTimes(2 * queries.length - 2);
      // A document replaced and another deleted: the next search of their owners lists them again, then prepares.
      const replaced = chunksOf(1, 2);
      for (const index of [cached, uncached]) {
        await index.upsertDocument('chunks_v1', 'doc1', 2, replaced);
        await index.deleteDocument('chunks_v1', 'doc6');
      }
      prepared.mockClear();
      await sameAsExact(cached, uncached, queries);
      expect(prepared).toHaveBeenCalledTimes(2 * queries.length - 2);
    } finally {
      await cached.close();
      await uncached.close();
    }
  });
});

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
      await sameAsExact(small, uncached, queries);
    } finally {
      await small.close();
      await uncached.close();
    }
  });

  describe('documents larger than a segment', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'vector-segments-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const random = seededRandom(11);
    const vector = () => Array.from({ length: DIMENSIONS }, () => random() * 2 - 1);
    // Three documents of 150 chunks: each in nine segments of 16 vectors and one of 6.
    const documents = Array.from({ length: 3 }, (_, d) =>
      Array.from({ length: 150 }, (_, n) => testChunk('agt_1', `big${d}`, n, `chunk ${d} ${n}`, vector())),
    );
    const queries: SearchQuery[] = Array.from({ length: 12 }, () => ({
      text: '',
      embedding: vector(),
      ownerIds: ['agt_1'],
      limit: 10,
      mode: 'vector' as const,
    }));

    it('keeps a document in segments and scores the survivors from them as the exact scan does', async () => {
      const path = join(dir, 'search.db');
      // The codes (450 × 76 bytes: 34 KB) fit, the floats (115 KB) do not.
      const small = new SqliteSearchIndex({ path, vectorCacheBytes: 48 * 1024 });
      const uncached = new SqliteSearchIndex({ path: ':memory:', vectorCacheBytes: 0 });
      try {
        for (const index of [small, uncached]) {
          await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
          for (const [d, chunks] of documents.entries())
            await index.upsertDocument('chunks_v1', `big${d}`, 1, chunks);
        }
        await sameAsExact(small, uncached, queries);
        // A new version replaces the document's segments; a deletion leaves none of its own.
        await small.upsertDocument(
          'chunks_v1',
          'big0',
          2,
          documents[0]!.map((chunk) => ({ ...chunk, version: 2 })),
        );
        await small.deleteDocument('chunks_v1', 'big1');
        const db = new DatabaseSync(path, { readOnly: true });
        try {
          const segments = db
            .prepare('SELECT chunk, length(vectors) AS bytes FROM "chunks_v1__vectors" ORDER BY chunk')
            .all();
          const perDocument = [...new Array<number>(9).fill(SEGMENT_VECTORS), 6];
          expect(segments.map((row) => row.bytes)).toEqual(
            [...perDocument, ...perDocument].map((n) => n * DIMENSIONS * 4),
          );
          const rows = db.prepare('SELECT length(vectors) AS bytes FROM "chunks_v1__documents"').all();
          expect(rows.map((row) => row.bytes)).toEqual([0, 0]);
        } finally {
          db.close();
        }
      } finally {
        await small.close();
        await uncached.close();
      }
    });

    it("reads the documents of an older file from their rows' own BLOBs, and writes new ones in segments", async () => {
      const path = join(dir, 'search.db');
      const writer = new SqliteSearchIndex({ path });
      await writer.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
      for (const [d, chunks] of documents.entries())
        await writer.upsertDocument('chunks_v1', `big${d}`, 1, chunks);
      await writer.close();
      // The file as a version without segments left it: every document row holds its vectors, no vectors table.
      const db = new DatabaseSync(path);
      const rows = db.prepare('SELECT doc_rowid, first_chunk, chunk_count FROM "chunks_v1__documents"').all();
      for (const row of rows) {
        const parts = db
          .prepare('SELECT vectors FROM "chunks_v1__vectors" WHERE chunk BETWEEN ? AND ? ORDER BY chunk')
          .all(Number(row.first_chunk), Number(row.first_chunk) + Number(row.chunk_count) - 1)
          .map((part) => part.vectors as Uint8Array);
        db.prepare('UPDATE "chunks_v1__documents" SET vectors = ? WHERE doc_rowid = ?').run(
          Buffer.concat(parts),
          Number(row.doc_rowid),
        );
      }
      db.exec('DROP TABLE "chunks_v1__vectors"');
      db.close();

      const small = new SqliteSearchIndex({ path, vectorCacheBytes: 48 * 1024 });
      const uncached = new SqliteSearchIndex({ path: ':memory:', vectorCacheBytes: 0 });
      try {
        await uncached.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
        for (const [d, chunks] of documents.entries())
          await uncached.upsertDocument('chunks_v1', `big${d}`, 1, chunks);
        await sameAsExact(small, uncached, queries);
        // Deleting an older document and adding a new one work on the same file; the new one is in segments.
        for (const index of [small, uncached]) {
          await index.deleteDocument('chunks_v1', 'big2');
          await index.upsertDocument(
            'chunks_v1',
            'big3',
            1,
            documents[2]!.map((chunk) => ({
              ...chunk,
              documentId: 'big3',
              chunkId: `big3-${chunk.chunkId}`,
            })),
          );
        }
        await sameAsExact(small, uncached, queries);
        const check = new DatabaseSync(path, { readOnly: true });
        try {
          expect(check.prepare('SELECT count(*) AS n FROM "chunks_v1__vectors"').get()!.n).toBe(10);
        } finally {
          check.close();
        }
      } finally {
        await small.close();
        await uncached.close();
      }
    });
  });
});
