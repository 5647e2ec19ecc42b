// Atomicity across threads: a worker thread rewrites a document's tags in a loop, through the compiled adapter in
// dist/ (built by `pretest`; run `npm run build` first when calling jest directly), while this thread searches the
// same WAL file through the TypeScript source. Within one process the contract's interleaving tests only run calls
// one after the other; here the write transactions really run while searches read.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SearchMode } from '../search-index.port.js';
import { testChunk } from '../search-index.contract.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const COMPILED = new URL(
  '../../../../../dist/libs/adapters/search/src/sqlite/sqlite-search-index.js',
  import.meta.url,
);

const DIMENSIONS = 4;
const CHUNKS = 40;
const MODES: readonly SearchMode[] = ['hybrid', 'bm25', 'vector'];

/**
 * Flips the document's tags between red and blue until `state[0]` is set; counts its writes in `state[1]`. A failure
 * rejects unhandled, which ends the worker with an 'error' event.
 */
const WRITER = `
const { workerData } = require('node:worker_threads');
(async () => {
  const { SqliteSearchIndex } = await import(workerData.module);
  const index = new SqliteSearchIndex({ path: workerData.path });
  const state = new Int32Array(workerData.state);
  for (let n = 0; Atomics.load(state, 0) === 0; n++) {
    await index.setDocumentTags('chunks_v1', 'doc', [n % 2 === 0 ? 'blue' : 'red']);
    Atomics.add(state, 1, 1);
  }
  await index.close();
})();
`;

let dir: string;
beforeAll(() => {
  if (!existsSync(fileURLToPath(COMPILED)))
    throw new Error(
      `${fileURLToPath(COMPILED)} is missing: run \`npm run build\` (npm test does it in pretest)`,
    );
  dir = mkdtempSync(join(tmpdir(), 'search-int-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SqliteSearchIndex.setDocumentTags across threads', () => {
  it('never lets a search see some of a document’s chunks retagged and others not', async () => {
    const path = join(dir, 'search.db');
    const reader = new SqliteSearchIndex({ path });
    await reader.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    const chunkIds = Array.from({ length: CHUNKS }, (_, n) => `doc-${n}`);
    await reader.upsertDocument(
      'chunks_v1',
      'doc',
      1,
      chunkIds.map((chunkId, n) => ({
        chunkId,
        documentId: 'doc',
        version: 1,
        ownerId: 'agt_1',
        tagIds: ['red'],
        sectionPath: [],
        start: n * 10,
        end: n * 10 + 9,
        text: `flipping tags ${n}`,
        embedding: [1, n / CHUNKS, 0, 0],
        documentName: 'doc.md',
      })),
    );
    const whole = [...chunkIds].sort().join();

    const state = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(WRITER, {
      eval: true,
      workerData: { module: COMPILED.href, path, state: state.buffer },
    });
    const exited = new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', resolve);
    });
    const seen = new Map<string, number>();
    let searches = 0;
    try {
      while (Atomics.load(state, 1) === 0) await tick();
      const writesBefore = Atomics.load(state, 1);
      for (let round = 0; round < 200; round++) {
        for (const mode of MODES) {
          const hits = await reader.search('chunks_v1', {
            text: 'flipping tags',
            embedding: [1, 0, 0, 0],
            ownerIds: ['agt_1'],
            tagIds: ['red'],
            mode,
            limit: 100,
          });
          const set = hits
            .map((hit) => hit.chunkId)
            .sort()
            .join();
          seen.set(set, (seen.get(set) ?? 0) + 1);
          searches++;
        }
        await tick();
      }
      expect(Atomics.load(state, 1) - writesBefore).toBeGreaterThan(10);
    } finally {
      Atomics.store(state, 0, 1);
      expect(await exited).toBe(0);
      await reader.close();
    }
    expect(searches).toBe(600);
    // Every search saw all chunks red or none; and the writes did overlap the searches (both states seen).
    expect([...seen.keys()].sort()).toEqual(['', whole]);
  });
});

describe('SqliteSearchIndex deletion on disk', () => {
  /** Every file under `at`, folders walked (the BM25 postings and ANN graphs live in folders beside search.db). */
  const filesUnder = (at: string): string[] =>
    readdirSync(at).flatMap((name) => {
      const path = join(at, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
  /** The files under `at` (the database, its -wal and -shm, the saved postings) whose bytes hold `needle`. */
  const filesHolding = (at: string, needle: string): string[] =>
    filesUnder(at).filter((path) => readFileSync(path).includes(Buffer.from(needle)));
  const chunk = (documentId: string, text: string, n = 0, ownerId = 'agt_1') =>
    testChunk(ownerId, documentId, n, text);

  it('leaves a deleted document’s text in no file, the WAL included, while the index stays open', async () => {
    const at = mkdtempSync(join(tmpdir(), 'search-erase-'));
    const index = new SqliteSearchIndex({ path: join(at, 'search.db') });
    await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    const secret = 'DELETEDTEXT7fq2k';
    await index.upsertDocument('chunks_v1', 'keep', 1, [chunk('keep', 'a document that stays', 0, 'spc_1')]);
    await index.upsertDocument(
      'chunks_v1',
      'gone',
      1,
      Array.from({ length: 20 }, (_, n) =>
        chunk('gone', `paragraph ${n} holds ${secret} in its words`, n, 'spc_1'),
      ),
    );
    expect(filesHolding(at, secret)).not.toEqual([]);
    await index.deleteDocument('chunks_v1', 'gone');
    expect(filesHolding(at, secret)).toEqual([]);
    const hits = await index.search('chunks_v1', {
      text: 'stays',
      embedding: [],
      ownerIds: ['spc_1'],
      limit: 5,
      mode: 'bm25',
    });
    expect(hits.map((hit) => hit.documentId)).toEqual(['keep']);
    await index.close();
    rmSync(at, { recursive: true, force: true });
  });

  it('leaves a deleted document’s indexed words (FTS5 terms, saved BM25 postings) in no file under the data dir', async () => {
    const at = mkdtempSync(join(tmpdir(), 'search-erase-terms-'));
    const path = join(at, 'search.db');
    // Postings in this thread, built from the first chunk on, so that they are saved beside search.db.
    const open = () => new SqliteSearchIndex({ path, bm25Worker: null, bm25Memory: { minChunks: 0 } });
    // FTS5 keeps terms as unicode61 folds them: lower case is what its segments hold.
    const erased = 'quillwortzephyr';
    const first = open();
    await first.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    for (let d = 0; d < 30; d++)
      await first.upsertDocument(
        'chunks_v1',
        `keep-${d}`,
        1,
        Array.from({ length: 10 }, (_, n) =>
          chunk(`keep-${d}`, `refund policy ${d} paragraph ${n} remains`, n),
        ),
      );
    const bm25 = (index: SqliteSearchIndex, text: string) =>
      index.search('chunks_v1', { text, embedding: [], ownerIds: ['agt_1'], limit: 5, mode: 'bm25' });
    // Postings built before the document arrives are changed by it, and saved with it when the index closes.
    await bm25(first, 'remains');
    await first.upsertDocument(
      'chunks_v1',
      'gone',
      1,
      Array.from({ length: 10 }, (_, n) => chunk('gone', `paragraph ${n} says ${erased} once`, n)),
    );
    expect((await bm25(first, erased)).map((hit) => hit.documentId)).toEqual(Array(5).fill('gone'));
    await first.bm25MemorySettled();
    await first.close();
    expect(filesHolding(at, erased)).toEqual(
      expect.arrayContaining([path, expect.stringMatching(/\.bm25\//)]),
    );

    const second = open();
    await bm25(second, 'remains');
    await second.bm25MemorySettled();
    await second.deleteDocument('chunks_v1', 'gone');
    expect(await bm25(second, erased)).toEqual([]);
    // Erased within DEFAULT_ERASURE_DELAY_MS and one merge of the segments, while the index stays open.
    await second.erasureSettled();
    expect(filesHolding(at, erased)).toEqual([]);
    expect((await bm25(second, 'policy 7')).map((hit) => hit.documentId)).toContain('keep-7');
    await second.close();
    expect(filesHolding(at, erased)).toEqual([]);
    rmSync(at, { recursive: true, force: true });
  });

  it('erases the words of a deletion still pending when the index closes, or when the next one opens the file', async () => {
    const at = mkdtempSync(join(tmpdir(), 'search-erase-pending-'));
    const path = join(at, 'search.db');
    // A pass that would come only after an hour: what erases the words is the close, or the next opening.
    const first = new SqliteSearchIndex({ path, bm25Worker: null, erasureDelayMs: 3_600_000 });
    await first.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
    await first.upsertDocument('chunks_v1', 'keep', 1, [chunk('keep', 'the handbook stays')]);
    await first.upsertDocument('chunks_v1', 'crashed', 1, [chunk('crashed', 'marigoldvexation left behind')]);
    await first.upsertDocument('chunks_v1', 'closed', 1, [chunk('closed', 'juniperquokka left behind')]);
    await first.deleteDocument('chunks_v1', 'crashed');
    // Tombstoned, not yet erased (the pass is pending) ...
    expect(filesHolding(at, 'marigoldvexation')).toEqual([path]);
    // ... until another index opens the file, as after a crash of the process that deleted it.
    const next = new SqliteSearchIndex({ path, bm25Worker: null });
    expect(filesHolding(at, 'marigoldvexation')).toEqual([]);
    await next.close();
    await first.deleteDocument('chunks_v1', 'closed');
    expect(filesHolding(at, 'juniperquokka')).toEqual([path]);
    await first.close();
    expect(filesHolding(at, 'juniperquokka')).toEqual([]);
    rmSync(at, { recursive: true, force: true });
  });
});
