// The embedded search index: the shared contract on a WAL file and in memory, then what only this adapter shows
// (persistence across instances, the owner-token filter, leaving out words most chunks contain).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchIndexContract, testChunk as chunk } from '../search-index.contract.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const dirs: string[] = [];
const freshPath = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'search-'));
  dirs.push(dir);
  return join(dir, 'search.db');
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

searchIndexContract('sqlite (WAL file)', async () => new SqliteSearchIndex({ path: freshPath() }));
searchIndexContract('sqlite (:memory:)', async () => new SqliteSearchIndex({ path: ':memory:' }));
// Every owner through its HNSW graph: built inline by the searches, or by a worker thread (the searches scan exactly
// until it is ready, and it is then brought to each search's snapshot).
searchIndexContract(
  'sqlite (ANN for every owner, WAL file)',
  async () => new SqliteSearchIndex({ path: freshPath(), ann: { minChunks: 1 } }),
);
searchIndexContract(
  'sqlite (ANN for every owner, :memory:)',
  async () => new SqliteSearchIndex({ path: ':memory:', ann: { minChunks: 1 } }),
);
searchIndexContract(
  'sqlite (ANN built by workers)',
  async () => new SqliteSearchIndex({ path: freshPath(), ann: { minChunks: 1, inlineAddMax: 0 } }),
);
// Every search's BM25 leg from the in-memory postings (bm25-memory.ts), built at the first search of each index.
searchIndexContract(
  'sqlite (BM25 from memory, WAL file)',
  async () => new SqliteSearchIndex({ path: freshPath(), bm25Worker: null, bm25Memory: { minChunks: 0 } }),
);
searchIndexContract(
  'sqlite (no vector cache)',
  async () => new SqliteSearchIndex({ path: ':memory:', vectorCacheBytes: 0 }),
);

const DIMENSIONS = 4;

/** The texts of agt_1's `limit` chunks nearest to the x axis in chunks_v1, best first (the vector leg alone). */
const nearestTexts = async (index: SqliteSearchIndex, limit: number): Promise<string[]> =>
  (
    await index.search('chunks_v1', {
      text: '',
      embedding: [1, 0, 0, 0],
      ownerIds: ['agt_1'],
      limit,
      mode: 'vector',
    })
  ).map((hit) => hit.text);

describe('SqliteSearchIndex', () => {
  it('keeps indexes, chunks and aliases in its file, visible to another instance on the same file', async () => {
    const path = freshPath();
    const writer = new SqliteSearchIndex({ path });
    const reader = new SqliteSearchIndex({ path });
    await writer.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    await writer.upsertDocument('chunks_v1', 'doc1', 1, [chunk('agt_1', 'doc1', 0, 'persistent words')]);
    await writer.setLive('knowledge', 'chunks_v1');
    expect(await reader.liveIndex('knowledge')).toBe('chunks_v1');
    const ask = (index: SqliteSearchIndex) =>
      index.search('chunks_v1', { text: 'words', embedding: [1, 0, 0, 0], ownerIds: ['agt_1'], limit: 5 });
    expect((await ask(reader)).map((hit) => hit.chunkId)).toEqual(['doc1-0']);
    await writer.close();
    await writer.close();
    await reader.close();

    const reopened = new SqliteSearchIndex({ path });
    expect(await reopened.liveIndex('knowledge')).toBe('chunks_v1');
    expect(await reopened.stats('chunks_v1')).toEqual({ chunks: 1, documents: 1 });
    expect((await ask(reopened)).map((hit) => hit.chunkId)).toEqual(['doc1-0']);
    await reopened.close();
  });

  it('never serves cached vectors of a dropped index to a new index of the same name, in any instance', async () => {
    const path = freshPath();
    const first = new SqliteSearchIndex({ path });
    const second = new SqliteSearchIndex({ path, vectorCacheBytes: 1024 });
    const nearest = (index: SqliteSearchIndex) => nearestTexts(index, 2);
    await first.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    await first.upsertDocument('chunks_v1', 'doc1', 1, [
      chunk('agt_1', 'doc1', 0, 'x-axis', [1, 0, 0, 0]),
      chunk('agt_1', 'doc1', 1, 'y-axis', [0, 1, 0, 0]),
    ]);
    expect(await nearest(first)).toEqual(['x-axis', 'y-axis']);
    expect(await nearest(second)).toEqual(['x-axis', 'y-axis']);
    // Recreated by the other instance, with the same row ids and other vectors.
    await second.dropIndex('chunks_v1');
    await second.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    await second.upsertDocument('chunks_v1', 'doc1', 1, [
      chunk('agt_1', 'doc1', 0, 'x-axis', [0, 0, 1, 0]),
      chunk('agt_1', 'doc1', 1, 'y-axis', [1, 0, 0, 0]),
    ]);
    expect(await nearest(first)).toEqual(['y-axis', 'x-axis']);
    expect(await nearest(second)).toEqual(['y-axis', 'x-axis']);
    // A cache smaller than one document still answers (nothing is kept).
    await second.upsertDocument('chunks_v1', 'doc2', 1, [
      chunk(
        'agt_1',
        'doc2',
        0,
        'big',
        Array.from({ length: DIMENSIONS }, () => 1),
      ),
      ...Array.from({ length: 100 }, (_, n) => chunk('agt_1', 'doc2', n + 1, `filler ${n}`, [0, 0, 0, 1])),
    ]);
    expect(await nearest(second)).toEqual(['y-axis', 'big']);
    await first.close();
    await second.close();
  });

  it('sees documents added and removed since its last search, by itself or by another instance on the file', async () => {
    const path = freshPath();
    const searcher = new SqliteSearchIndex({ path });
    const other = new SqliteSearchIndex({ path });
    const nearest = () => nearestTexts(searcher, 5);
    await searcher.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    await searcher.upsertDocument('chunks_v1', 'doc1', 1, [chunk('agt_1', 'doc1', 0, 'first', [1, 0, 0, 0])]);
    expect(await nearest()).toEqual(['first']);
    // The owner's documents are remembered between searches: another connection's commits are seen...
    await other.upsertDocument('chunks_v1', 'doc2', 1, [
      chunk('agt_1', 'doc2', 0, 'second', [0.9, 0.1, 0, 0]),
    ]);
    expect(await nearest()).toEqual(['first', 'second']);
    await other.deleteDocument('chunks_v1', 'doc1');
    expect(await nearest()).toEqual(['second']);
    // ...and so are its own writes, a new version of a document included.
    await searcher.upsertDocument('chunks_v1', 'doc2', 2, [
      chunk('agt_1', 'doc2', 0, 'second v2', [0, 1, 0, 0]),
    ]);
    await searcher.upsertDocument('chunks_v1', 'doc3', 1, [chunk('agt_1', 'doc3', 0, 'third', [1, 0, 0, 0])]);
    expect(await nearest()).toEqual(['third', 'second v2']);
    await searcher.close();
    await other.close();
  });

  it('does not let text that spells another owner’s token reach that owner’s rows', async () => {
    const { ownerToken } = await import('./fts5-query.js');
    const index = new SqliteSearchIndex({ path: ':memory:' });
    await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    // A's chunk carries B's owner token in its text, and the query asks for A's token as a word.
    await index.upsertDocument('chunks_v1', 'a1', 1, [
      chunk('agt_a', 'a1', 0, `secret ${ownerToken('agt_b')}`),
    ]);
    await index.upsertDocument('chunks_v1', 'b1', 1, [chunk('agt_b', 'b1', 0, 'public note')]);
    const many = ['agt_b', ...Array.from({ length: 20 }, (_, n) => `agt_x${n}`)];
    for (const ownerIds of [['agt_b'], many]) {
      for (const text of [
        'secret',
        ownerToken('agt_b'),
        ownerToken('agt_a'),
        `secret OR ${ownerToken('agt_a')}`,
      ]) {
        const hits = await index.search('chunks_v1', {
          text,
          embedding: [],
          ownerIds,
          limit: 50,
          mode: 'bm25',
        });
        expect(hits.map((hit) => hit.documentId)).toEqual([]);
      }
    }
    await index.close();
  });

  it('matches by the rarer words of a query, leaving out words most chunks of a large index contain', async () => {
    const index = new SqliteSearchIndex({ path: ':memory:' });
    await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    // 1,200 chunks all say "common"; 60 also say "rare"; none says "absent".
    for (let d = 0; d < 12; d++) {
      const documentId = `doc${d}`;
      const chunks = Array.from({ length: 100 }, (_, n) =>
        chunk('agt_1', documentId, n, `common filler ${d * 100 + n < 60 ? 'rare ' : ''}text ${d}-${n}`),
      );
      await index.upsertDocument('chunks_v1', documentId, 1, chunks);
    }
    const bm25 = (text: string, limit: number) =>
      index.search('chunks_v1', { text, embedding: [], ownerIds: ['agt_1'], limit, mode: 'bm25' });
    const all = await bm25('common rare', 200);
    expect(all).toHaveLength(60);
    expect(all.every((hit) => hit.text.includes('rare'))).toBe(true);
    // Alone, or beside words that match nothing, the common word still finds chunks.
    expect(await bm25('common absent', 5)).toHaveLength(5);
    expect(await bm25('common', 5)).toHaveLength(5);
    expect(await bm25('absent', 5)).toEqual([]);
    // A small index keeps every word: here "common" is in every chunk and still retrieves.
    const small = new SqliteSearchIndex({ path: ':memory:' });
    await small.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    await small.upsertDocument('chunks_v1', 'd', 1, [
      chunk('agt_1', 'd', 0, 'common rare'),
      chunk('agt_1', 'd', 1, 'common only'),
    ]);
    const hits = await small.search('chunks_v1', {
      text: 'common rare',
      embedding: [],
      ownerIds: ['agt_1'],
      limit: 5,
      mode: 'bm25',
    });
    expect(hits.map((hit) => hit.text)).toEqual(['common rare', 'common only']);
    await small.close();
    await index.close();
  });

  it('keeps BM25 to the allowed owners whichever way it checks them, in the same order', async () => {
    const index = new SqliteSearchIndex({ path: ':memory:' });
    await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    // agt_big holds 1,200 chunks, agt_small 60; "needle" is in 10 chunks of each.
    for (let d = 0; d < 12; d++)
      await index.upsertDocument(
        'chunks_v1',
        `big${d}`,
        1,
        Array.from({ length: 100 }, (_, i) =>
          chunk('agt_big', `big${d}`, i, `hay ${d * 100 + i < 10 ? 'needle ' : ''}big ${d}-${i}`),
        ),
      );
    await index.upsertDocument(
      'chunks_v1',
      'small',
      1,
      Array.from({ length: 60 }, (_, i) =>
        chunk('agt_small', 'small', i, `hay ${i < 10 ? 'needle ' : ''}small ${i}`),
      ),
    );
    const bm25 = async (text: string, ownerIds: string[]) =>
      (await index.search('chunks_v1', { text, embedding: [], ownerIds, limit: 100, mode: 'bm25' })).map(
        (hit) => [hit.documentId.replace(/\d+$/, ''), hit.chunkId] as const,
      );
    // Both owners hold every chunk: nothing to check.
    const both = await bm25('needle', ['agt_big', 'agt_small']);
    expect(both).toHaveLength(20);
    // The big owner, a word of few rows: each matched row is checked (a join), the small owner's rows never come.
    const big = await bm25('needle', ['agt_big']);
    expect(big).toHaveLength(10);
    expect(big.every(([document]) => document === 'big')).toBe(true);
    // The small owner: its token in the MATCH costs less than checking the rows of both owners.
    const small = await bm25('needle', ['agt_small']);
    expect(small.map(([document]) => document)).toEqual(new Array(10).fill('small'));
    // A row's rank does not depend on how its owner was checked.
    expect(big).toEqual(both.filter(([document]) => document === 'big'));
    await index.close();
  });

  it('matches rarer words alone when the frequent ones hold many more rows, ranking as the whole query', async () => {
    // 1,200 chunks: "rare" in 80 (0–79), "common" in 500 (40–539; under half): the rarer word's 80 rows against the
    // frequent word's 500, so the split matches "rare" alone beside "rare AND common". Rows 40–79 hold both, and are
    // longer: scored by "rare" alone they rank below rows 0–39, and only the first MATCH gives them their place.
    const text = (n: number) =>
      [n < 80 ? 'rare' : '', n >= 40 && n < 540 ? 'common' : '', `filler ${n}`].filter(Boolean).join(' ');
    const ranked = async (bm25SplitMinChunks: number | undefined) => {
      const index = new SqliteSearchIndex({ path: ':memory:', bm25SplitMinChunks });
      await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
      for (let d = 0; d < 12; d++)
        await index.upsertDocument(
          'chunks_v1',
          `doc${d}`,
          1,
          Array.from({ length: 100 }, (_, i) => chunk('agt_1', `doc${d}`, i, text(d * 100 + i))),
        );
      const query = { text: 'rare common', embedding: [], ownerIds: ['agt_1'], mode: 'bm25' as const };
      const hits = (limit: number) =>
        index.search('chunks_v1', { ...query, limit }).then((found) => found.map((hit) => hit.text));
      // 12 and 20 hits: 48 and 80 candidates, at most the 80 rows of "rare", so the split runs.
      const found = { top: await hits(12), more: await hits(20) };
      await index.close();
      return found;
    };
    const split = await ranked(1000);
    expect(split.top).toHaveLength(12);
    expect(split.more).toHaveLength(20);
    expect([...split.top, ...split.more].every((hit) => hit.startsWith('rare common filler'))).toBe(true);
    // The same rows in the same order as the whole query's MATCH (1,200 chunks: under the default, no split).
    expect(split).toEqual(await ranked(undefined));
  });

  // The split between rarer and frequent words is tried from 4,000 chunks by default; 1,200 here, so both ways run.
  it.each([
    ['the split tried', 1000],
    ['the whole query matched', undefined],
  ])(
    'ranks rows with rarer words by every word of the query, and still finds rows holding only frequent ones (%s)',
    async (_, bm25SplitMinChunks) => {
      const index = new SqliteSearchIndex({ path: ':memory:', bm25SplitMinChunks });
      await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
      // 1,200 chunks: "seldom scarce sparse" in 55 of them (under 5 %), "often" in 120 (10 %: a frequent word), the
      // last 20 of the 55 among them (longer, and later: without "often" counted, they would rank last of the 55).
      const text = (n: number) =>
        [n < 55 ? 'seldom scarce sparse' : '', n >= 35 && n < 155 ? 'often' : '', `filler ${n}`]
          .filter(Boolean)
          .join(' ');
      for (let d = 0; d < 12; d++) {
        const documentId = `doc${d}`;
        await index.upsertDocument(
          'chunks_v1',
          documentId,
          1,
          Array.from({ length: 100 }, (_, i) => chunk('agt_1', documentId, i, text(d * 100 + i))),
        );
      }
      const bm25 = async (query: string, limit: number) =>
        (
          await index.search('chunks_v1', {
            text: query,
            embedding: [],
            ownerIds: ['agt_1'],
            limit,
            mode: 'bm25',
          })
        ).map((hit) => hit.text);
      // Enough rows hold the rarer words to outscore any row of "often" alone: among them, "often" still counts.
      const ranked = await bm25('seldom scarce sparse often', 12);
      expect(ranked).toHaveLength(12);
      expect(ranked.every((hit) => hit.startsWith('seldom scarce sparse often'))).toBe(true);
      // Two frequent words outweigh one rarer word, but "often" (10 %) counted with the rarer ones leaves "usual" (30 %)
      // alone frequent: its rows, however scored, stay below; it still counts among the rows that are ranked.
      const tiers = new SqliteSearchIndex({ path: ':memory:', bm25SplitMinChunks });
      await tiers.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
      const tierText = (n: number) =>
        [
          n < 55 ? 'seldom' : '',
          n >= 40 && n < 160 ? 'often' : '',
          (n >= 30 && n < 45) || (n >= 200 && n < 575) ? 'usual' : '',
          `filler ${n}`,
        ]
          .filter(Boolean)
          .join(' ');
      for (let d = 0; d < 12; d++)
        await tiers.upsertDocument(
          'chunks_v1',
          `doc${d}`,
          1,
          Array.from({ length: 100 }, (_, i) => chunk('agt_1', `doc${d}`, i, tierText(d * 100 + i))),
        );
      const tiered = (
        await tiers.search('chunks_v1', {
          text: 'seldom often usual',
          embedding: [],
          ownerIds: ['agt_1'],
          limit: 12,
          mode: 'bm25',
        })
      ).map((hit) => hit.text);
      expect(tiered.slice(0, 5).every((hit) => hit.startsWith('seldom often usual'))).toBe(true);
      expect(tiered.slice(5).every((hit) => hit.startsWith('seldom often filler'))).toBe(true);
      await tiers.close();
      // One rarer word scores below what "often" may reach: the rows holding only "often" are ranked too, after.
      const all = await bm25('seldom often', 200);
      expect(all).toHaveLength(155);
      expect(all.slice(0, 20).every((hit) => hit.startsWith('seldom scarce sparse often'))).toBe(true);
      expect(all.slice(20, 55).every((hit) => hit.startsWith('seldom scarce sparse filler'))).toBe(true);
      expect(all.slice(55).every((hit) => hit.startsWith('often filler'))).toBe(true);
      await index.close();
    },
  );
});
