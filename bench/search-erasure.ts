// `npm run build && node dist/bench/search-erasure.js`: what erasing a deleted document's words from the embedded
// search index costs. Builds indexes of 1,000, 10,000 and 100,000 chunks (documents of 20 chunks, 80 words each drawn
// with a skew from 30,000 words, 50 owners), deletes three documents from each, one after the other, and prints the
// median time of one deleteDocument call, the time of the one erasure pass the three deletions share (the merge of
// the FTS5 segments, the WAL truncation), and how many deleted documents' words are left in any file after it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type IndexedChunk } from '#search';
import { SqliteSearchIndex } from '#search/sqlite/sqlite-search-index';
import { seededRandom } from '#kernel';
import { makeTempDir, median } from './util.js';

const CHUNKS_PER_DOCUMENT = 20;
const VOCABULARY = Array.from({ length: 30_000 }, (_, n) => `w${n.toString(36)}x`);
const SIZES = [1_000, 10_000, 100_000];
/**
 * One word in each deleted document, each starting with a letter no other word starts with: FTS5 stores a term after
 * the prefix it shares with the term before it, so only a word sharing none with its neighbours is whole in the file.
 */
const MARKERS = ['kumquatish', 'quillworty', 'yarrowlike'];

const filesUnder = (at: string): string[] =>
  readdirSync(at).flatMap((name) => {
    const path = join(at, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

function documentChunks(next: () => number, d: number, marker = ''): IndexedChunk[] {
  const documentId = `doc-${d}`;
  return Array.from({ length: CHUNKS_PER_DOCUMENT }, (_, n) => {
    const words = Array.from({ length: 80 }, () => VOCABULARY[Math.floor(next() ** 2 * VOCABULARY.length)]!);
    const text = `${words.join(' ')} ${marker}`;
    return {
      chunkId: `${documentId}-${n}`,
      documentId,
      version: 1,
      ownerId: `agt_${d % 50}`,
      tagIds: [],
      sectionPath: [],
      start: 0,
      end: text.length,
      text,
      embedding: [1, next(), 0, 0],
      documentName: `${documentId}.md`,
    };
  });
}

async function measure(
  chunks: number,
): Promise<{ chunks: number; deleteMs: number; erasureMs: number; leftInFiles: number }> {
  const dir = makeTempDir('search-erasure');
  const index = new SqliteSearchIndex({
    path: join(dir.path, 'search.db'),
    bm25Worker: null,
    erasureDelayMs: 0,
  });
  try {
    await index.ensureIndex('chunks_v1', { dimensions: 4 });
    const next = seededRandom(chunks);
    const documents = chunks / CHUNKS_PER_DOCUMENT;
    const doomed = new Map(
      MARKERS.map((marker, n) => [Math.floor((documents * (n + 1)) / (MARKERS.length + 1)), marker]),
    );
    for (let d = 0; d < documents; d++)
      await index.upsertDocument('chunks_v1', `doc-${d}`, 1, documentChunks(next, d, doomed.get(d)));
    const times: number[] = [];
    for (const d of doomed.keys()) {
      const started = performance.now();
      await index.deleteDocument('chunks_v1', `doc-${d}`);
      times.push(performance.now() - started);
    }
    const started = performance.now();
    await index.erasureSettled();
    const erasureMs = performance.now() - started;
    const files = filesUnder(dir.path).map((path) => readFileSync(path));
    const leftInFiles = MARKERS.filter((marker) => files.some((bytes) => bytes.includes(marker))).length;
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return { chunks, deleteMs: round(median(times)), erasureMs: round(erasureMs), leftInFiles };
  } finally {
    await index.close();
    dir.remove();
  }
}

const rows = [];
for (const size of SIZES) rows.push(await measure(size));
console.table(rows);
