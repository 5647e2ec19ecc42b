// The in-memory BM25 postings (bm25-memory.ts) against SQLite's own bm25(): over a corpus of several owners, tags,
// ASCII and non-ASCII words (folded letters, marks FTS5 drops, words FTS5 cuts in two), some chunks repeating a word
// hundreds of times, the BM25 leg ranked from memory is the list a MATCH of the whole query returns, ordered by
// bm25() and row id — before and after documents are replaced and deleted (removed rows, FTS5's counts after
// contentless deletes), built in slices or at once.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { seededRandom } from '#kernel';
import type { IndexedChunk } from '../search-index.port.js';
import { matchExpression, MAX_OWNER_TOKENS, queryTerms } from './fts5-query.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const INDEX = 'chunks_v1';
const DIMENSIONS = 4;
const OWNERS = ['agt_big', 'agt_other', 'spc_third'];
/** Words with ASCII and non-ASCII letters; "don’t" and "naïve—café" are two tokens each for FTS5. */
const VOCABULARY = [
  'ledger', 'invoice', 'budget', 'travel', 'policy', 'laptop', 'expense', 'review', 'quarter', 'audit',
  'the', 'of', 'and', 'what', 'about', 'report', 'Straße', 'café', 'CAFÉ', 'Ærøskøbing', 'naïve', 'İstanbul',
  'ΆΈΉ', 'x²', 'a\u0301b', '日本語', 'don’t', 'naïve—café', 'Ünïcödé', 'résumé', 'Zürich', 'smörgåsbord',
  'vendor', 'payroll', 'mileage', 'receipt', 'approval', 'deadline', 'forecast', 'variance',
]; // prettier-ignore

/** Words drawn with a skew (the first ones far more often), some punctuation and numbers between them. */
function passage(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const word = VOCABULARY[Math.floor(VOCABULARY.length * next() ** 2.2)]!;
    out.push(next() < 0.1 ? `${word},` : next() < 0.05 ? `(${word})` : word);
    if (next() < 0.05) out.push(String(Math.floor(next() * 100)));
  }
  return out.join(' ');
}

function document(next: () => number, documentId: string, version: number, ownerId: string): IndexedChunk[] {
  const count = 5 + Math.floor(next() * 40);
  return Array.from({ length: count }, (_, n) => ({
    chunkId: `${documentId}:${version}:${n}`,
    documentId,
    version,
    ownerId,
    tagIds: next() < 0.3 ? ['tag_red'] : next() < 0.5 ? ['tag_blue'] : [],
    sectionPath: [documentId],
    start: 0,
    end: 10,
    // Some chunks hold a word more often than a posting's count byte does (kept exactly beside it).
    text: `${passage(next, 3 + Math.floor(next() * 60))}${n % 23 === 7 ? ` ${'ledger '.repeat(250 + 3 * n)}` : ''}`,
    embedding: [1, 0, 0, 0],
    documentName: `${documentId}.md`,
  }));
}

interface Query {
  readonly text: string;
  readonly ownerIds: string[];
  readonly tagIds?: string[];
}

function queries(next: () => number, count: number): Query[] {
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from(
      { length: 1 + Math.floor(next() * 6) },
      () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!,
    ).filter((word) => !/[’—]/.test(word));
    const ownerIds = i % 3 === 0 ? OWNERS : i % 3 === 1 ? ['agt_big'] : ['agt_other', 'spc_third'];
    return {
      text: `${words.join(' ')}${i % 5 === 0 ? ' unknownword?' : ''}`,
      ownerIds,
      ...(i % 4 === 0 ? { tagIds: ['tag_red'] } : {}),
    };
  });
}

/** The whole query's MATCH ranked by SQLite's bm25(), as bm25Leg would run it unpruned. */
function fts5Ranking(db: DatabaseSync, query: Query, candidates: number): number[] {
  const fts = `"${INDEX}__fts"`;
  const tags = query.tagIds
    ? `AND ${fts}.rowid IN (SELECT chunk FROM "${INDEX}__tags" WHERE tag_id IN (SELECT value FROM json_each(?)))`
    : '';
  return db
    .prepare(
      `SELECT ${fts}.rowid AS id FROM ${fts} WHERE ${fts} MATCH ? ${tags}
       ORDER BY bm25(${fts}, 1.0, 0.0), ${fts}.rowid LIMIT ?`,
    )
    .all(
      matchExpression(
        queryTerms(query.text),
        query.ownerIds.length <= MAX_OWNER_TOKENS ? query.ownerIds : null,
      ),
      ...(query.tagIds ? [JSON.stringify(query.tagIds)] : []),
      candidates,
    )
    .map((row) => Number(row.id));
}

const CANDIDATES = 200;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bm25-memory-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The chunk row ids the index returns for the query's BM25 leg, best first (every chunk id → its row id). */
async function memoryRanking(index: SqliteSearchIndex, db: DatabaseSync, query: Query): Promise<number[]> {
  const hits = await index.search(INDEX, { ...query, embedding: [], mode: 'bm25', limit: CANDIDATES / 4 });
  const rowOf = db.prepare(`SELECT id FROM "${INDEX}__chunks" WHERE chunk_id = ?`);
  return hits.map((hit) => Number(rowOf.get(hit.chunkId)!.id));
}

describe('in-memory BM25 postings', () => {
  it('rank as bm25() ranks the whole query, before and after replacements and deletions', async () => {
    const path = join(dir, 'search.db');
    const index = new SqliteSearchIndex({ path, bm25Worker: null, bm25Memory: { minChunks: 0 } });
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const next = seededRandom(7);
      await index.ensureIndex(INDEX, { dimensions: DIMENSIONS });
      for (let d = 0; d < 60; d++)
        await index.upsertDocument(
          INDEX,
          `doc${d}`,
          1,
          document(next, `doc${d}`, 1, OWNERS[d % 7 === 0 ? 1 + (d % 2) : 0]!),
        );
      const { chunks } = await index.stats(INDEX);
      expect(chunks).toBeGreaterThan(1000);

      // The first search starts the build (FTS5 answers it); afterwards the postings answer.
      const asked = queries(next, 80);
      await memoryRanking(index, db, asked[0]!);
      expect(index.bm25MemoryProgress().map((entry) => entry.state)).toEqual(['building']);
      await index.bm25MemorySettled();
      expect(index.bm25MemoryProgress().map((entry) => entry.state)).toEqual(['ready']);
      const limit = CANDIDATES / 4;
      let compared = 0;
      for (const query of asked) {
        const expected = fts5Ranking(db, query, limit);
        expect({ query, ranking: await memoryRanking(index, db, query) }).toEqual({
          query,
          ranking: expected,
        });
        compared += expected.length;
      }
      expect(compared).toBeGreaterThan(1500);
      // A short list leaves the frequent words out of most rows' scoring (bm25-postings.ts): the same list still.
      for (const candidates of [1, 5])
        for (const query of asked.slice(0, 15)) {
          const ranked = index.bm25Ranks({
            index: INDEX,
            ...query,
            tagIds: query.tagIds ?? null,
            candidates,
          });
          expect({ query, candidates, ranked }).toEqual({
            query,
            candidates,
            ranked: fts5Ranking(db, query, candidates),
          });
        }

      // Replacements (new rows, the old ones removed) and deletions, brought in by the next search itself.
      for (let d = 0; d < 60; d += 7)
        await index.upsertDocument(INDEX, `doc${d}`, 2, document(next, `doc${d}`, 2, 'agt_big'));
      for (let d = 4; d < 60; d += 17) await index.deleteDocument(INDEX, `doc${d}`);
      for (const query of queries(next, 40))
        expect({ query, ranking: await memoryRanking(index, db, query) }).toEqual({
          query,
          ranking: fts5Ranking(db, query, limit),
        });
      expect(index.bm25MemoryProgress().map((entry) => entry.state)).toEqual(['ready']);
    } finally {
      db.close();
      await index.close();
    }
  });

  it('are saved beside the file, loaded by the next process, and never keep a deleted document in the file', async () => {
    const path = join(dir, 'search.db');
    const open = () => new SqliteSearchIndex({ path, bm25Worker: null, bm25Memory: { minChunks: 0 } });
    const snapshots = () => (existsSync(`${path}.bm25`) ? readdirSync(`${path}.bm25`) : []);
    const db = new DatabaseSync(path, { readOnly: true, open: false });
    const next = seededRandom(11);
    const asked = queries(next, 30);
    const first = open();
    await first.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    for (let d = 0; d < 50; d++)
      await first.upsertDocument(INDEX, `doc${d}`, 1, document(next, `doc${d}`, 1, OWNERS[d % 3]!));
    expect((await first.stats(INDEX)).chunks).toBeGreaterThan(1000);
    await first.search(INDEX, { ...asked[0]!, embedding: [], mode: 'bm25', limit: 5 });
    await first.bm25MemorySettled();
    expect(snapshots()).toHaveLength(1);
    await first.close();

    // A new process loads them at its first search: answered from memory at once, nothing built.
    const second = open();
    db.open();
    try {
      for (const query of asked)
        expect({ query, ranking: await memoryRanking(second, db, query) }).toEqual({
          query,
          ranking: fts5Ranking(db, query, CANDIDATES / 4),
        });
      expect(second.bm25MemoryProgress()).toEqual([expect.objectContaining({ state: 'ready' })]);
      expect(second.bm25MemoryProgress()[0]!.buildMs).toBeUndefined();
      // A deletion takes the file away at once; close saves the postings without the document.
      await second.deleteDocument(INDEX, 'doc7');
      expect(snapshots()).toEqual([]);
      await second.upsertDocument(INDEX, 'doc8', 2, document(next, 'doc8', 2, OWNERS[0]!));
      await memoryRanking(second, db, asked[1]!);
    } finally {
      await second.close();
    }
    expect(snapshots()).toHaveLength(1);

    const third = open();
    try {
      for (const query of asked)
        expect({ query, ranking: await memoryRanking(third, db, query) }).toEqual({
          query,
          ranking: fts5Ranking(db, query, CANDIDATES / 4),
        });
      expect(third.bm25MemoryProgress()[0]).toMatchObject({ state: 'ready' });
      // Dropping the index removes its file, whoever holds the postings.
      await third.setLive('chunks', INDEX);
      await third.ensureIndex('chunks_v2', { dimensions: DIMENSIONS });
      await third.setLive('chunks', 'chunks_v2');
      await third.dropIndex(INDEX);
      expect(snapshots()).toEqual([]);
    } finally {
      db.close();
      await third.close();
    }
  });
});
