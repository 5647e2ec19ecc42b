// The BM25 thread, with the compiled worker (dist/, built by `npm test`'s pretest; run `npm run build` first when
// calling jest directly): a large index's BM25 leg ranked there gives the very hits the searching thread gives, a
// chunk deleted before the search is never returned, and a worker that cannot start or dies leaves every search
// answered in the searching thread.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { IndexedChunk, SearchMode } from '../search-index.port.js';
import { Bm25Thread } from './bm25-thread.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const COMPILED_WORKER = new URL(
  '../../../../../dist/libs/adapters/search/src/sqlite/bm25-thread.worker.js',
  import.meta.url,
);

const DIMENSIONS = 8;
const OWNERS = ['agt_a', 'agt_b', 'spc_c'];
const WORDS = [
  'ledger',
  'invoice',
  'budget',
  'travel',
  'policy',
  'laptop',
  'expense',
  'review',
  'quarter',
  'audit',
];
/** Large enough for the thread (and for the split between rarer and frequent words). */
const LARGE = { bm25ThreadMinChunks: 100, bm25SplitMinChunks: 100 } as const;

/** A deterministic chunk: a few of the words (the first ones far more often), an owner, a tag on some. */
function chunk(documentId: string, n: number, ownerId: string): IndexedChunk {
  const words = Array.from(
    { length: 6 },
    (_, i) => WORDS[(n * (i + 3) + i * i) % (i < 3 ? 3 : WORDS.length)]!,
  );
  return {
    chunkId: `${documentId}:${n}`,
    documentId,
    version: 1,
    ownerId,
    tagIds: n % 4 === 0 ? ['tag_red'] : [],
    sectionPath: [documentId],
    start: 0,
    end: 10,
    text: `${words.join(' ')} note ${n}`,
    embedding: Array.from({ length: DIMENSIONS }, (_, d) => Math.sin(n * (d + 1)) + 0.01),
    documentName: `${documentId}.md`,
  };
}

const QUERIES: readonly { text: string; ownerIds: string[]; tagIds?: string[] }[] = [
  { text: 'ledger travel audit', ownerIds: OWNERS },
  { text: 'What about the quarter review?', ownerIds: ['agt_a'] },
  { text: 'laptop expense policy', ownerIds: ['agt_b', 'spc_c'], tagIds: ['tag_red'] },
  { text: 'invoice', ownerIds: OWNERS },
  { text: 'nothing matches this', ownerIds: OWNERS },
];
const MODES: readonly SearchMode[] = ['hybrid', 'bm25'];

/** Documents doc0… of 25 chunks each, the document's owner as `ownerOf` says. */
async function fill(
  index: SqliteSearchIndex,
  documents: number,
  ownerOf: (d: number) => string,
): Promise<void> {
  await index.ensureIndex('chunks_v1', { dimensions: DIMENSIONS });
  for (let d = 0; d < documents; d++)
    await index.upsertDocument(
      'chunks_v1',
      `doc${d}`,
      1,
      Array.from({ length: 25 }, (_, n) => chunk(`doc${d}`, d * 25 + n, ownerOf(d))),
    );
}

let dir: string;
let path: string;
beforeAll(async () => {
  if (!existsSync(fileURLToPath(COMPILED_WORKER)))
    throw new Error(`${fileURLToPath(COMPILED_WORKER)} is missing: run \`npm run build\` (npm test does it)`);
  dir = mkdtempSync(join(tmpdir(), 'bm25-thread-'));
  path = join(dir, 'search.db');
  const writer = new SqliteSearchIndex({ path, bm25Worker: null });
  await fill(writer, 12, (d) => OWNERS[d % OWNERS.length]!);
  await writer.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const embeddingOf = (text: string) =>
  Array.from({ length: DIMENSIONS }, (_, d) => Math.cos(text.length * (d + 1)));

const search = (index: SqliteSearchIndex, query: (typeof QUERIES)[number], mode: SearchMode) =>
  index.search('chunks_v1', { ...query, embedding: embeddingOf(query.text), limit: 10, mode });

/** Searches until the thread says it is ready (the first search starts it and ranks here). */
async function whenReady(index: SqliteSearchIndex): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!index.bm25ThreadReady()) {
    if (Date.now() > deadline) throw new Error('the BM25 thread did not start');
    await search(index, QUERIES[0]!, 'hybrid');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SqliteSearchIndex with the BM25 thread', () => {
  it('gives the hits the searching thread gives, for every mode, owner set and tag filter', async () => {
    const threaded = new SqliteSearchIndex({ path, ...LARGE, bm25Worker: COMPILED_WORKER });
    const plain = new SqliteSearchIndex({ path, ...LARGE, bm25Worker: null });
    await whenReady(threaded);
    expect(plain.bm25ThreadReady()).toBe(false);
    let hits = 0;
    for (const query of QUERIES)
      for (const mode of MODES) {
        const expected = await search(plain, query, mode);
        expect(await search(threaded, query, mode)).toEqual(expected);
        hits += expected.length;
      }
    expect(hits).toBeGreaterThan(50);
    // The embedding as a promise, settled later: the thread ranks meanwhile, and the hits are the same.
    for (const query of QUERIES) {
      const later = new Promise<number[]>((resolve) => setTimeout(() => resolve(embeddingOf(query.text)), 5));
      expect(await threaded.search('chunks_v1', { ...query, embedding: later, limit: 10 })).toEqual(
        await search(plain, query, 'hybrid'),
      );
    }
    // Still the thread's: a failed request would have stopped it and ranked here.
    expect(threaded.bm25ThreadReady()).toBe(true);
    await Promise.all([threaded.close(), plain.close()]);
  });

  it('hands over an answer that has arrived at once, without waiting for the event loop to deliver it', async () => {
    const thread = new Bm25Thread(COMPILED_WORKER, path, LARGE.bm25SplitMinChunks, false);
    const deadline = Date.now() + 10_000;
    while (!thread.available()) {
      if (Date.now() > deadline) throw new Error('the BM25 thread did not start');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const request = {
      index: 'chunks_v1',
      text: 'ledger travel',
      ownerIds: OWNERS,
      tagIds: null,
      candidates: 20,
    };
    const ranked = thread.rank(request);
    // Waits for the answer without letting the loop turn (as a search's vector leg keeps it busy).
    const gate = new Int32Array(new SharedArrayBuffer(4));
    let settled = 0;
    while (settled === 0 && Date.now() < deadline) {
      Atomics.wait(gate, 0, 0, 2);
      settled = thread.settleArrived();
    }
    expect(settled).toBe(1);
    const order: string[] = [];
    setImmediate(() => order.push('the loop turned'));
    const ids = await ranked;
    order.push('ranked');
    expect(order).toEqual(['ranked']);
    expect(ids.length).toBeGreaterThan(0);
    // The same ranking as an answer the loop delivers.
    expect(await thread.rank(request)).toEqual(ids);
    expect(thread.settleArrived()).toBe(0);
    await thread.close();
  });

  it('never returns a chunk of a document deleted before the search', async () => {
    const threaded = new SqliteSearchIndex({
      path: join(dir, 'deleting.db'),
      ...LARGE,
      bm25Worker: COMPILED_WORKER,
    });
    await fill(threaded, 6, () => 'agt_a');
    await whenReady(threaded);
    const query = { text: 'ledger invoice budget', ownerIds: ['agt_a'] };
    const before = await search(threaded, query, 'bm25');
    const gone = before[0]!.documentId;
    await threaded.deleteDocument('chunks_v1', gone);
    for (const mode of MODES) {
      const after = await search(threaded, query, mode);
      expect(after.length).toBeGreaterThan(0);
      expect(after.some((hit) => hit.documentId === gone)).toBe(false);
    }
    await threaded.close();
  });

  it('answers a search whose index is dropped while the thread ranks with no hits, not an error', async () => {
    // Says it is ready, then answers each request 200 ms later (and a close at once, as the real one does).
    const slow = join(dir, 'slow.worker.mjs');
    writeFileSync(
      slow,
      "import { parentPort, workerData } from 'node:worker_threads';\n" +
        'parentPort.postMessage({ ready: true });\n' +
        "parentPort.on('message', ({ id, close }) => close ? parentPort.postMessage({ closed: true }) :\n" +
        '  setTimeout(() => workerData.answers.postMessage({ id, ids: [1, 2, 3] }), 200));\n',
    );
    const index = new SqliteSearchIndex({
      path: join(dir, 'dropping.db'),
      ...LARGE,
      bm25Worker: pathToFileURL(slow),
    });
    await fill(index, 5, () => 'agt_a');
    while (!index.bm25ThreadReady()) {
      await search(index, QUERIES[3]!, 'vector');
      await index.search('chunks_v1', {
        text: 'ledger',
        embedding: [],
        ownerIds: ['agt_a'],
        limit: 5,
        mode: 'bm25',
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pending = search(index, { text: 'ledger invoice', ownerIds: ['agt_a'] }, 'hybrid');
    await index.dropIndex('chunks_v1');
    await expect(pending).resolves.toEqual([]);
    await index.close();
  });

  it('answers every search in the searching thread when the worker cannot start or dies under a request', async () => {
    const plain = new SqliteSearchIndex({ path, ...LARGE, bm25Worker: null });
    const broken = join(dir, 'broken.worker.mjs');
    writeFileSync(broken, "throw new Error('this worker does not start');\n");
    // Says it is ready, then ends on its first request.
    const dying = join(dir, 'dying.worker.mjs');
    writeFileSync(
      dying,
      "import { parentPort } from 'node:worker_threads';\n" +
        "parentPort.postMessage({ ready: true });\nparentPort.on('message', () => process.exit(3));\n",
    );
    for (const worker of [broken, dying]) {
      const index = new SqliteSearchIndex({ path, ...LARGE, bm25Worker: pathToFileURL(worker) });
      for (let round = 0; round < 5; round++) {
        for (const query of QUERIES)
          expect(await search(index, query, 'hybrid')).toEqual(await search(plain, query, 'hybrid'));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await index.close();
    }
    await plain.close();
  });
});
