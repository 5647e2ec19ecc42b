// Embedded search index: one SQLite file (node:sqlite, WAL), per index version a set of tables named after it.
//
// - `<ix>__chunks`: one row per chunk (citation fields and text); rowids of a document's chunks are consecutive.
// - `<ix>__documents`: one row per document: version, owner and its chunks' rowid range (rows written before
//   `<ix>__vectors` existed also hold the document's embeddings in a BLOB of their own).
// - `<ix>__vectors`: the documents' embeddings (unit length, Float32 LE) in segments of 16 (vector-segments.ts).
// - `<ix>__tags`: which chunks carry which tag (replaced in place by setDocumentTags, nothing else rewritten).
// - `<ix>__fts`: contentless FTS5 (unicode61, diacritics removed) over the text, plus an `owner` column holding one
//   token per owner so that a MATCH finds only the allowed owners' rows; ranked with bm25() weighting owner at 0.
//
// Both legs filter by owner inside the query: BM25 by the owner tokens in the MATCH (a few owners; beyond
// MAX_OWNER_TOKENS by the chunk's owner in a join); the vector leg reads only the allowed owners' documents. When the
// owners hold many chunks, BM25 is ranked from postings in memory instead (bm25-memory.ts): the same list as FTS5's
// whole-query MATCH, at a fraction of its cost.
//
// The vector leg is an exact cosine scan over the allowed owners' packed BLOBs, decoded once and kept in an LRU
// cache with int8 codes of the same vectors: a first pass over the codes (int8-scan.ts, WebAssembly SIMD, the codes
// resident in the module's memory) leaves only the vectors that may be among the best, by a proven error bound, to
// score exactly; documents that are not cached are scored exactly in a small WebAssembly SIMD module with the
// JavaScript loop's exact arithmetic (wasm-scan.ts). Either way the scores and the ranking are the exact scan's. The scan figures below were measured with the JavaScript loop, ~2.5x slower than the module. sqlite-vec 0.1.9 installs and loads (DatabaseSync { allowExtension: true }) and was measured on
// 100,000 chunks of 384 dimensions, 500 owners (2-core VM, same load): its scalar vec_distance_cosine over per-chunk
// rows ≈ 138 ms over all of them, this scan ≈ 73 ms (cached), its vec0 KNN ≈ 51 ms on one 100,000-vector
// partition; for three owners (~600 chunks) this scan ≈ 0.35 ms, vec0 ≈ 0.6 ms. vec0 would need a partition per
// owner (a vector chunk allocated per Agent: 786 MB for 150 MB of vectors at its default size), cannot filter by
// tag inside its KNN, and does not reclaim deleted vectors yet; so no native extension is loaded.
//
// A search runs in one read transaction, so its legs and the fetched chunks come from one snapshot: with WAL,
// another process's upsert is seen entirely or not at all. The exception: a large index's BM25 leg is ranked in a
// thread of its own (bm25-thread.ts) while this one runs the vector leg, in the thread's own snapshot; the chunks
// are then read in a second read transaction, so a chunk deleted meanwhile is never returned. Each write is one
// IMMEDIATE transaction.
//
// Over 300 lines: both legs, every write and the caches the writes keep valid (vectors, owners' documents, term
// statistics, postings) share this one connection and one transaction per call; what stands alone is a module beside
// it (int8-scan, packed-vectors, owner-documents, bm25-memory, bm25-thread, ann-index, fts5-query).
import { randomUUID } from 'node:crypto';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import {
  ConflictError,
  checkpointInThread,
  execOpening,
  NotFoundError,
  openPrivateDatabase,
  truncateWal,
  ValidationError,
} from '#kernel/thread-kit';
import {
  assertDimensions,
  assertDocumentChunks,
  assertDocumentId,
  assertIndexName,
  assertQueryEmbedding,
  assertTagIds,
  candidatesPerLeg,
  clampLimit,
  reciprocalRankFusion,
  type IndexedChunk,
  type SearchHit,
  type SearchIndex,
  type SearchIndexStats,
  type SearchQuery,
} from '../search-index.port.js';
import {
  foldTerm,
  matchExpression,
  MAX_OWNER_TOKENS,
  ownerToken,
  queryTerms,
  type OtherTerms,
} from './fts5-query.js';
import { packVectors, TopScores, unitVector, unpackVectors } from './packed-vectors.js';
import {
  createSegmentsTable,
  deleteSegments,
  documentVectors,
  segmentsTable,
  vectorPieces,
  vectorReader,
  writeSegments,
  type SegmentStatements,
} from './vector-segments.js';
import { AnnIndexes, type AnnProgress, type OwnerDocument } from './ann-index.js';
import { VectorScanner } from './wasm-scan.js';
import { Bm25Thread, defaultBm25Worker, type Bm25Request } from './bm25-thread.js';
import { Bm25Memory, type Bm25MemoryProgress, type Bm25Source, type MemoryDocument } from './bm25-memory.js';
import { Fts5Tokens } from './fts5-tokens.js';
import { removeSnapshot } from './bm25-snapshot.js';
import { bm25Idf, type Fts5Totals } from './bm25-postings.js';
import { Int8Block, int8Available, Int8Run, Int8Scan } from './int8-scan.js';
import { OwnerDocuments, type ScannedDocument } from './owner-documents.js';

export interface SqliteSearchIndexOptions {
  /** The database file, or ':memory:'. */
  readonly path: string;
  /**
   * Memory for decoded embeddings and their int8 codes, most recently used kept (default 256 MiB, ≈139,000 chunks of
   * 384 dimensions: 1,536 bytes of floats, 384 of codes and 12 of scale each).
   */
  readonly vectorCacheBytes?: number;
  /**
   * Approximate nearest neighbours (HNSW) for owners with at least `minChunks` chunks (default: off, see
   * DEFAULT_ANN_MIN_CHUNKS; below it the exact scan is faster); `inlineAddMax` vectors at most are added to a graph by a search, more are built by a
   * worker thread (default 256: about 0.1 s of inserts at most). Graphs are saved in `<path>.ann/` (in memory only for ':memory:').
   */
  readonly ann?: { readonly minChunks?: number; readonly inlineAddMax?: number };
  /**
   * BM25 tries the split between rarer and frequent words (bm25Leg) in indexes of at least this many chunks (default
   * DEFAULT_BM25_SPLIT_MIN_CHUNKS); below it the whole query is matched at once. Results are the same either way.
   */
  readonly bm25SplitMinChunks?: number;
  /**
   * The compiled worker of the process's WAL checkpoint thread (kernel's WalCheckpoints; default: the one beside its
   * module, when compiled); null leaves checkpoints to the writing thread, as SQLite does by default.
   */
  readonly checkpointWorker?: URL | null;
  /**
   * The compiled worker the BM25 leg of large indexes' searches runs in, beside the vector leg (bm25-thread.ts;
   * default: the one beside its module, when compiled); null ranks BM25 in the searching thread.
   */
  readonly bm25Worker?: URL | null;
  /** An index of at least this many chunks ranks BM25 in that thread (default DEFAULT_BM25_SPLIT_MIN_CHUNKS). */
  readonly bm25ThreadMinChunks?: number;
  /**
   * BM25 ranked from postings in memory (bm25-memory.ts) when the owners searched hold at least `minChunks` chunks
   * (default DEFAULT_BM25_MEMORY_MIN_CHUNKS), within `maxBytes` for all indexes (default 256 MiB). By default where
   * the BM25 leg runs: in the BM25 thread, or in this one when there is no thread; false: FTS5 always.
   */
  readonly bm25Memory?: { readonly minChunks?: number; readonly maxBytes?: number } | false;
  /** How long after a deletion its words are erased from the FTS5 segments (default DEFAULT_ERASURE_DELAY_MS). */
  readonly erasureDelayMs?: number;
}

/**
 * A deleted document's words are erased from every file within this delay plus one merge of the index's FTS5
 * segments (see eraseDeletedTerms): the deletions made meanwhile share that merge, so deleting an Agent's hundred
 * documents costs one rewrite of the index, not a hundred.
 */
export const DEFAULT_ERASURE_DELAY_MS = 1000;

/** Owners holding this many chunks are ranked from the in-memory postings (bm25-memory.ts). */
export const DEFAULT_BM25_MEMORY_MIN_CHUNKS = 4000;
const DEFAULT_BM25_MEMORY_BYTES = 256 * 1024 * 1024;

/**
 * Off unless configured: on the bench corpus (offline-embed, feature-hashed) no HNSW configuration measured so far
 * reaches recall@10 0.95 at 100,000 chunks while beating the exact scan (M 16, ef 96/128: recall 0.10, 2.3 ms vs
 * 17.9 ms exact; M 32, ef 128/2000: recall 0.62 and slower than exact on a loaded machine, a 100k build of ~18 min).
 */
export const DEFAULT_ANN_MIN_CHUNKS = Number.POSITIVE_INFINITY;
const DEFAULT_ANN_INLINE_ADD_MAX = 256;

const DEFAULT_VECTOR_CACHE_BYTES = 256 * 1024 * 1024;

/** Below this many chunks every query term is kept: the BM25 leg is cheap anyway. */
const PRUNE_MIN_CHUNKS = 1000;
/**
 * Below this many chunks the split between rarer and frequent words (bm25Leg) is not tried: its MATCHes cost more
 * than the whole query's one. Measured on the bench corpus (one owner, 300 questions, p50 of the BM25 leg): at 1,000
 * chunks the whole query 0.7 ms, the split 3.6 MATCHes of ~0.68 ms on average (~2.4 ms); at 10,000 the whole query 19
 * ms, the split 2.9 MATCHes of ~2.2 ms (~6.4 ms). The two cross at roughly 3,500 chunks.
 */
const DEFAULT_BM25_SPLIT_MIN_CHUNKS = 4000;
/**
 * Query words in at least this share of a large index's chunks are matched only in rows that also hold a rarer
 * word of the query (bm25Leg); when the bound does not hold at the first share, the next one is tried (fewer rows
 * of frequent words alone to rule out, more rows scored), then the whole query. Measured on the bench corpus
 * (100,000 chunks, one owner): at 5 % two queries in three keep the whole query's list from the bound alone, at
 * ~25 ms against ~95 ms for the whole query; at 20 % nearly all of them, at ~40 ms.
 */
const FREQUENT_SHARES = [0.05, 0.2] as const;
/**
 * The split's rarer words are matched alone (not `NOT` the frequent ones) when the frequent words' postings are at
 * least this many times theirs (bm25Leg). On the bench's 100,000 chunks: rare words of ~2,700 rows against frequent
 * ones of ~58,000, 2.1 ms alone vs 5.0 ms with the NOT; ~12,000 against ~43,000, about the same either way.
 */
const RARE_ALONE_RATIO = 3;
/** FTS5's bm25() k1 (fts5_aux.c): a word's part of a row's score is below its IDF × (k1 + 1). */
const BM25_K1 = 1.2;
const OWNER_TOKEN_SHAPE = /^o[0-9a-f]+$/;
/** How a BM25 MATCH keeps to the allowed owners (bm25Leg). */
type OwnerFilter = 'tokens' | 'join' | 'none';
/** A join's lookup per matched row against FTS5's read of one posting of an owner token, measured: ~25. */
const JOIN_ROW_COST = 25;

/** Document frequencies are looked up again after this long, or once the index grew or shrank by a tenth. */
const TERM_STATS_TTL_MS = 60_000;
const MAX_CACHED_TERMS = 50_000;

interface IndexRecord {
  dimensions: number;
  chunks: number;
  documents: number;
  /** New each time the index is created: cached data of a dropped index of the same name is never reused. */
  incarnation: string;
}

/**
 * A document row's decoded embeddings, and their int8 codes for the scan's first pass (int8-scan.ts). The floats go
 * first when the budget is exceeded (null then): the codes alone still rank the row, and the few vectors they leave
 * to score exactly are read back from the row's BLOB.
 */
interface CachedVectors {
  vectors: Float32Array | null;
  readonly codes: Int8Block | null;
  /** When it was last used (VectorCache's clock): the least recently used go first. */
  used: number;
}

/**
 * Decoded embeddings per document row. A row's vectors never change (an upsert writes a new row, and row ids are
 * AUTOINCREMENT, never reused), so an entry is valid as long as its key exists: no invalidation is needed, and
 * writes of other processes simply miss the cache. An evicted entry gives its codes' memory back. A use only stamps
 * the entry (a search touches every document of its owners: reordering a Map for each cost ~1 ms per search of an
 * Agent with 1,000 documents); the stamps are sorted when the budget is exceeded, and the cache is then brought down
 * to a tenth below it, so a cache too small for what is searched does not sort at every miss. Floats are given up
 * before codes (least recently used first): at a million chunks of 384 dimensions the floats are 1.5 GB and the codes
 * 384 MB, and a search with the codes resident reads back only the segments its survivors are in.
 */
class VectorCache {
  private readonly entries = new Map<string, CachedVectors>();
  private bytes = 0;
  /** The codes' share of `bytes`: what giving up every float would leave. */
  private codeBytes = 0;
  private clock = 0;
  /** The clock when the current search began, and the floats it has used (cached before, or added by it). */
  private searchStart = 0;
  private searchFloats = 0;
  /** The codes of the current search's documents not cached yet, still to be encoded (bytes). */
  private searchCodes = 0;
  /** Moves whenever an entry is dropped or gives up its floats: a prepared scan holds while it does not. */
  private epoch = 0;
  /** Prepared scans of documents searched before (see `prepared`), by the search's documents. */
  private readonly preparedScans = new Map<string, PreparedScan>();

  constructor(private readonly maxBytes: number) {}

  /** What `prepare` compares with: read before a search's documents are looked up. */
  get version(): number {
    return this.epoch;
  }

  /**
   * The prepared scan of these documents (`key`: the index's version, its incarnation and the owners), while every
   * one of them is cached unchanged since it was prepared; it counts as a use of each (a search of them begins).
   */
  prepared(key: string): Int8Run | null {
    const found = this.preparedScans.get(key);
    if (!found) return null;
    if (found.epoch !== this.epoch) {
      this.retire(found);
      this.preparedScans.delete(key);
      return null;
    }
    found.used = ++this.clock;
    // Its documents are all cached: a search begins with nothing to encode.
    this.beginSearch([], 0);
    return found.run;
  }

  /** Keeps a scan of the entries a search used, unless the cache changed since `version` (read before it began). */
  prepare(key: string, version: number, entries: CachedVectors[], run: Int8Run): void {
    if (version !== this.epoch) return;
    if (this.preparedScans.size >= MAX_PREPARED_SCANS) this.retireAll();
    this.preparedScans.set(key, { epoch: version, run, entries, used: this.clock });
  }

  /** A prepared scan's uses go to its entries' stamps (its searches stamped the scan, not each entry). */
  private retire(scan: PreparedScan): void {
    for (const entry of scan.entries) if (entry.used < scan.used) entry.used = scan.used;
  }

  private retireAll(): void {
    for (const scan of this.preparedScans.values()) this.retire(scan);
    this.preparedScans.clear();
  }

  /**
   * A search begins over these documents: the floats it uses from now on are counted, and the codes of those not
   * cached yet are set aside (see keepsFloats).
   */
  beginSearch(
    documents: readonly { readonly key: string; readonly count: number }[],
    dimensions: number,
  ): void {
    this.searchStart = this.clock;
    this.searchFloats = 0;
    this.searchCodes = 0;
    for (const { key, count } of documents)
      if (!this.entries.has(key)) this.searchCodes += count * dimensions;
  }

  get(key: string): CachedVectors | undefined {
    const cached = this.entries.get(key);
    if (cached) {
      if (cached.used <= this.searchStart && cached.vectors) this.searchFloats += cached.vectors.byteLength;
      cached.used = ++this.clock;
    }
    return cached;
  }

  /** Caches the vectors (with codes when the scan can use them); undefined when they exceed the whole budget. */
  set(key: string, vectors: Float32Array, count: number, dimensions: number): CachedVectors | undefined {
    const codes = count * dimensions;
    if (codes > this.maxBytes) return undefined;
    const encoded = Int8Block.encode(vectors, count, dimensions);
    if (!encoded && vectors.byteLength > this.maxBytes) return undefined;
    return this.add(key, {
      vectors: encoded && vectors.byteLength + codes > this.maxBytes ? null : vectors,
      codes: encoded,
      used: ++this.clock,
    });
  }

  /**
   * Whether a document's floats would stay beside the codes: there is room for them beside the codes cached, those
   * this search has still to encode (this document's among them) and the floats it has used. Past that a document is
   * cached as codes alone, encoded from its segments (setCodes), and its floats are never read whole: otherwise each
   * document's floats pushed out the previous one's in the same search, and the first search over a million chunks
   * with the codes alone resident read 1.5 GB of floats to give them up.
   */
  keepsFloats(count: number, dimensions: number): boolean {
    return (
      this.codeBytes + this.searchCodes + this.searchFloats + count * dimensions * 4 <= this.maxBytes * 0.9
    );
  }

  /** Caches a document's codes alone, from its vectors in pieces; undefined when they cannot be (budget, no SIMD). */
  setCodes(
    key: string,
    pieces: Iterable<{ readonly row: number; readonly floats: Float32Array }>,
    count: number,
    dimensions: number,
  ): CachedVectors | undefined {
    if (count * dimensions > this.maxBytes) return undefined;
    const encoded = Int8Block.encodePieces(pieces, count, dimensions);
    return encoded ? this.add(key, { vectors: null, codes: encoded, used: ++this.clock }) : undefined;
  }

  private add(key: string, cached: CachedVectors): CachedVectors {
    this.entries.set(key, cached);
    this.bytes += size(cached);
    this.codeBytes += cached.codes?.bytes ?? 0;
    this.searchFloats += cached.vectors?.byteLength ?? 0;
    this.searchCodes = Math.max(0, this.searchCodes - (cached.codes?.bytes ?? 0));
    if (this.bytes > this.maxBytes) this.evict(cached);
    return cached;
  }

  forget(prefix: string): void {
    this.retireAll();
    for (const [key, cached] of this.entries) {
      if (key.startsWith(prefix)) {
        this.entries.delete(key);
        this.drop(cached);
      }
    }
  }

  /**
   * Least recently used first, down to 90 % of the budget: the floats of entries with codes, then whole entries; never
   * `kept` (the entry just added, in use).
   */
  private evict(kept: CachedVectors): void {
    const target = this.maxBytes * 0.9;
    this.retireAll();
    const byAge = [...this.entries].sort(([, a], [, b]) => a.used - b.used);
    for (const [, cached] of byAge) {
      if (this.bytes <= target) return;
      if (cached === kept || !cached.codes || !cached.vectors) continue;
      this.bytes -= cached.vectors.byteLength;
      if (cached.used > this.searchStart) this.searchFloats -= cached.vectors.byteLength;
      cached.vectors = null;
      this.epoch++;
    }
    for (const [key, cached] of byAge) {
      if (this.bytes <= target) break;
      if (cached === kept) continue;
      this.entries.delete(key);
      this.drop(cached);
    }
  }

  private drop(cached: CachedVectors): void {
    this.epoch++;
    this.bytes -= size(cached);
    this.codeBytes -= cached.codes?.bytes ?? 0;
    if (cached.used > this.searchStart) this.searchFloats -= cached.vectors?.byteLength ?? 0;
    cached.codes?.release();
  }
}

/** A scan prepared from a search's documents (VectorCache.prepared): valid while the cache's epoch is `epoch`. */
interface PreparedScan {
  readonly epoch: number;
  readonly run: Int8Run;
  readonly entries: readonly CachedVectors[];
  /** The clock of its last use (see VectorCache.retire). */
  used: number;
}

/** Prepared scans kept at most (each a few objects per document): Agents searched in turn each keep theirs. */
const MAX_PREPARED_SCANS = 16;

const size = (cached: CachedVectors): number =>
  (cached.vectors?.byteLength ?? 0) + (cached.codes?.bytes ?? 0);

interface DocumentRow {
  doc_rowid: number;
  version: number;
  first_chunk: number;
  chunk_count: number;
}

interface ChunkRow {
  id: number;
  chunk_id: string;
  document_id: string;
  document_name: string;
  section_path: string;
  start: number;
  end: number;
  text: string;
}

/** A new document row's own vectors BLOB: empty (its vectors are in `<ix>__vectors`). */
const NO_VECTORS = new Uint8Array(0);

const tables = (index: string) => ({
  documents: `"${index}__documents"`,
  chunks: `"${index}__chunks"`,
  tags: `"${index}__tags"`,
  fts: `"${index}__fts"`,
  vocab: `"${index}__vocab"`,
});

const json = (values: readonly string[]): string => JSON.stringify(values);

/**
 * FTS5's averages record (row 1 of its `_data` table, fts5_index.c): SQLite varints, the row count then each
 * column's tokens. Missing (no row yet): zeros.
 */
function fts5Totals(block: Uint8Array | undefined): Fts5Totals {
  const values: number[] = [];
  let at = 0;
  while (block && at < block.length) {
    let value = 0;
    for (let i = 0; at < block.length; i++) {
      const byte = block[at++]!;
      // The ninth byte of a varint gives all its eight bits.
      if (i === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if (byte < 0x80) break;
    }
    values.push(value);
  }
  const [rows = 0, ...columns] = values;
  return { rows, tokens: columns.reduce((sum, tokens) => sum + tokens, 0) };
}

export class SqliteSearchIndex implements SearchIndex {
  private readonly db: DatabaseSync;
  private readonly statementCache = new Map<string, StatementSync>();
  private readonly vectorCache: VectorCache;
  private readonly ownerDocuments: OwnerDocuments;
  private readonly termStats = new Map<
    string,
    { total: number; at: number; frequencies: Map<string, number> }
  >();
  private readonly ann: AnnIndexes;
  private readonly annMinChunks: number;
  private readonly bm25SplitMinChunks: number;
  private readonly bm25Thread: Bm25Thread | null;
  private readonly bm25ThreadMinChunks: number;
  private readonly bm25Memory: Bm25Memory | null;
  /** Where the in-memory BM25 postings are saved (bm25-snapshot.ts); null for an in-memory database. */
  private readonly bm25Directory: string | null;
  private closed = false;
  private readonly stopCheckpoints: (() => Promise<void>) | null;
  private readonly erasureDelayMs: number;
  /** The erasure pass scheduled after a deletion, until it has run. */
  private erasure: { timer: NodeJS.Timeout; done: Promise<void> } | null = null;
  /** Indexes whose `<ix>__vectors` table this process has seen to exist (an older file's indexes lack it). */
  private readonly segmented = new Set<string>();
  private readonly segmentStatements: SegmentStatements = {
    get: (sql, ...params) => this.get(sql, ...params),
    iterate: <T>(sql: string, ...params: SQLInputValue[]) =>
      this.statement(sql).iterate(...params) as Iterable<T>,
    run: (sql, ...params) => this.run(sql, ...params),
  };

  constructor(options: SqliteSearchIndexOptions) {
    const inMemory = options.path === ':memory:';
    this.db = openPrivateDatabase(options.path);
    this.ann = new AnnIndexes(
      {
        directory: inMemory ? null : `${options.path}.ann`,
        // A worker cannot open another connection's in-memory database: everything is added inline there.
        inlineAddMax: inMemory
          ? Number.POSITIVE_INFINITY
          : (options.ann?.inlineAddMax ?? DEFAULT_ANN_INLINE_ADD_MAX),
      },
      options.path,
    );
    this.annMinChunks = options.ann?.minChunks ?? DEFAULT_ANN_MIN_CHUNKS;
    this.bm25Directory = inMemory ? null : `${options.path}.bm25`;
    this.bm25SplitMinChunks = options.bm25SplitMinChunks ?? DEFAULT_BM25_SPLIT_MIN_CHUNKS;
    const bm25Worker = options.bm25Worker === undefined ? defaultBm25Worker() : options.bm25Worker;
    this.bm25Thread =
      bm25Worker && !inMemory
        ? new Bm25Thread(bm25Worker, options.path, this.bm25SplitMinChunks, options.bm25Memory ?? {})
        : null;
    this.bm25ThreadMinChunks = options.bm25ThreadMinChunks ?? DEFAULT_BM25_SPLIT_MIN_CHUNKS;
    // With a BM25 thread, the postings are the thread's: this thread ranks with FTS5 only until it is ready.
    const memory = this.bm25Thread ? false : (options.bm25Memory ?? {});
    this.bm25Memory = memory
      ? new Bm25Memory(new Fts5Tokens(this.db), {
          minChunks: memory.minChunks ?? DEFAULT_BM25_MEMORY_MIN_CHUNKS,
          maxBytes: memory.maxBytes ?? DEFAULT_BM25_MEMORY_BYTES,
          directory: this.bm25Directory,
        })
      : null;
    this.vectorCache = new VectorCache(options.vectorCacheBytes ?? DEFAULT_VECTOR_CACHE_BYTES);
    this.ownerDocuments = new OwnerDocuments(
      () => this.get<{ data_version: number }>('PRAGMA data_version')!.data_version,
    );
    // secure_delete: a deleted chunk's text is overwritten with zeros, not left in a free page; after a deletion the
    // WAL is checkpointed and truncated (purge below), since its older frames still hold the pages as they were.
    execOpening(
      this.db,
      'PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;',
    );
    execOpening(
      this.db,
      `
      CREATE TABLE IF NOT EXISTS search_indexes (
        name TEXT PRIMARY KEY, dimensions INTEGER NOT NULL, incarnation TEXT NOT NULL,
        chunks INTEGER NOT NULL DEFAULT 0, documents INTEGER NOT NULL DEFAULT 0) STRICT;
      CREATE TABLE IF NOT EXISTS search_aliases (alias TEXT PRIMARY KEY, index_name TEXT NOT NULL) STRICT;
      CREATE TABLE IF NOT EXISTS search_erasures (index_name TEXT PRIMARY KEY) STRICT;
    `,
    );
    this.erasureDelayMs = options.erasureDelayMs ?? DEFAULT_ERASURE_DELAY_MS;
    // Deletions whose words a process that stopped (or crashed) before its erasure pass left in the segments.
    this.eraseDeletedTerms();
    // Ingestion commits chunks on the event loop; copying the log into the file is the checkpoint thread's work.
    this.stopCheckpoints = checkpointInThread(this.db, {
      path: options.path,
      synchronous: 'NORMAL',
      worker: options.checkpointWorker,
    });
  }

  async ensureIndex(name: string, options: { readonly dimensions: number }): Promise<void> {
    assertIndexName(name);
    assertDimensions(options.dimensions);
    this.write(() => {
      const existing = this.registry(name);
      if (existing) {
        if (existing.dimensions !== options.dimensions) {
          throw new ConflictError(
            'search_index_dimensions_conflict',
            `Search index '${name}' has ${existing.dimensions} dimensions, not ${options.dimensions}`,
          );
        }
        return;
      }
      const t = tables(name);
      this.db.exec(`
        CREATE TABLE ${t.documents} (
          doc_rowid INTEGER PRIMARY KEY AUTOINCREMENT, document_id TEXT NOT NULL UNIQUE, version INTEGER NOT NULL,
          owner_id TEXT NOT NULL, first_chunk INTEGER NOT NULL, chunk_count INTEGER NOT NULL,
          vectors BLOB NOT NULL) STRICT;
        CREATE INDEX "${name}__documents_owner" ON ${t.documents} (owner_id, first_chunk, chunk_count);
        CREATE TABLE ${t.chunks} (
          id INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, document_id TEXT NOT NULL,
          owner_id TEXT NOT NULL, document_name TEXT NOT NULL, section_path TEXT NOT NULL,
          start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL) STRICT;
        CREATE TABLE ${t.tags} (
          tag_id TEXT NOT NULL, chunk INTEGER NOT NULL, doc_rowid INTEGER NOT NULL,
          PRIMARY KEY (tag_id, chunk)) STRICT, WITHOUT ROWID;
        CREATE INDEX "${name}__tags_chunk" ON ${t.tags} (chunk);
        CREATE VIRTUAL TABLE ${t.fts} USING fts5(
          text, owner, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE ${t.vocab} USING fts5vocab(${t.fts}, 'row');
        ${createSegmentsTable(name)};
      `);
      this.segmented.add(name);
      this.run(
        'INSERT INTO search_indexes (name, dimensions, incarnation) VALUES (?, ?, ?)',
        name,
        options.dimensions,
        randomUUID(),
      );
    });
  }

  async upsertDocument(
    index: string,
    documentId: string,
    version: number,
    chunks: readonly IndexedChunk[],
  ): Promise<void> {
    assertIndexName(index);
    const { dimensions } = this.existing(index);
    assertDocumentChunks(documentId, version, chunks, dimensions);
    const vectors = packVectors(
      chunks.map((chunk) => chunk.embedding),
      dimensions,
    );
    const t = tables(index);
    this.write(() => {
      const current = this.get<DocumentRow>(
        `SELECT doc_rowid, version, first_chunk, chunk_count FROM ${t.documents} WHERE document_id = ?`,
        documentId,
      );
      if (current && current.version > version) return;
      this.ensureSegments(index);
      const removed = current ? this.removeDocument(index, current) : 0;
      const first = this.get<{ next: number }>(
        `SELECT ifnull(max(id), 0) + 1 AS next FROM ${t.chunks}`,
      )!.next;
      const ownerId = chunks[0]?.ownerId ?? '';
      const docRowid = Number(
        this.run(
          `INSERT INTO ${t.documents} (document_id, version, owner_id, first_chunk, chunk_count, vectors)
           VALUES (?, ?, ?, ?, ?, ?)`,
          documentId,
          version,
          ownerId,
          first,
          chunks.length,
          NO_VECTORS,
        ).lastInsertRowid,
      );
      writeSegments(this.segmentStatements, index, first, vectors, chunks.length, dimensions);
      const token = ownerToken(ownerId);
      chunks.forEach((chunk, i) => {
        const id = first + i;
        this.run(
          `INSERT INTO ${t.chunks} (id, chunk_id, document_id, owner_id, document_name, section_path, start, "end", text)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          id,
          chunk.chunkId,
          documentId,
          ownerId,
          chunk.documentName,
          JSON.stringify(chunk.sectionPath),
          chunk.start,
          chunk.end,
          chunk.text,
        );
        this.run(`INSERT INTO ${t.fts} (rowid, text, owner) VALUES (?, ?, ?)`, id, chunk.text, token);
        for (const tagId of new Set(chunk.tagIds)) {
          this.run(`INSERT INTO ${t.tags} (tag_id, chunk, doc_rowid) VALUES (?, ?, ?)`, tagId, id, docRowid);
        }
      });
      this.adjustCounts(index, chunks.length - removed, (chunks.length > 0 ? 1 : 0) - (removed > 0 ? 1 : 0));
    });
  }

  /**
   * Deletes the tag rows of the document's chunks and inserts the new set in one IMMEDIATE transaction. Nothing
   * else changes: the chunk rows, FTS rows (the owner tokens), the document row and its packed vectors stay as they
   * are, so the vector cache (keyed by document row) stays valid, and no tag data is cached: both legs read the
   * tags table inside each search's snapshot.
   */
  async setDocumentTags(index: string, documentId: string, tagIds: readonly string[]): Promise<void> {
    assertIndexName(index);
    assertDocumentId(documentId);
    assertTagIds(tagIds);
    const t = tables(index);
    this.write(() => {
      this.existing(index);
      const current = this.get<DocumentRow>(
        `SELECT doc_rowid, version, first_chunk, chunk_count FROM ${t.documents} WHERE document_id = ?`,
        documentId,
      );
      if (!current || current.chunk_count === 0) return;
      const last = current.first_chunk + current.chunk_count - 1;
      this.run(`DELETE FROM ${t.tags} WHERE chunk BETWEEN ? AND ?`, current.first_chunk, last);
      if (tagIds.length === 0) return;
      this.run(
        `INSERT INTO ${t.tags} (tag_id, chunk, doc_rowid)
         SELECT tag.value, c.id, ? FROM (SELECT DISTINCT value FROM json_each(?)) tag
         CROSS JOIN ${t.chunks} c WHERE c.id BETWEEN ? AND ?`,
        current.doc_rowid,
        json(tagIds),
        current.first_chunk,
        last,
      );
    });
  }

  async deleteDocument(index: string, documentId: string): Promise<void> {
    assertIndexName(index);
    this.existing(index);
    const t = tables(index);
    this.write(() => {
      const current = this.get<DocumentRow>(
        `SELECT doc_rowid, version, first_chunk, chunk_count FROM ${t.documents} WHERE document_id = ?`,
        documentId,
      );
      if (!current) return;
      const removed = this.removeDocument(index, current);
      this.adjustCounts(index, -removed, removed > 0 ? -1 : 0);
      this.run('INSERT OR IGNORE INTO search_erasures (index_name) VALUES (?)', index);
    });
    this.purgeWal();
    this.scheduleErasure();
  }

  async search(index: string, query: SearchQuery): Promise<SearchHit[]> {
    assertIndexName(index);
    const mode = query.mode ?? 'hybrid';
    if (mode !== 'hybrid' && mode !== 'bm25' && mode !== 'vector') {
      throw new ValidationError('invalid_search_mode', `Search mode must be hybrid, bm25 or vector`);
    }
    const limit = clampLimit(query.limit);
    const ownerIds = [...new Set(query.ownerIds)].filter((id) => typeof id === 'string');
    const tagIds = query.tagIds && query.tagIds.length > 0 ? [...new Set(query.tagIds)] : null;
    const candidates = candidatesPerLeg(limit);
    const request: Bm25Request = {
      index,
      text: typeof query.text === 'string' ? query.text : '',
      ownerIds,
      tagIds,
      candidates,
    };
    let inThread: Promise<readonly number[]> | null = null;
    let vectorIds: number[] | null = null;
    // A large index's BM25 leg is ranked in the thread while this one awaits the query's embedding (when it comes as a
    // promise: the embedding is computed meanwhile) and runs the vector leg.
    const sized = mode !== 'vector' && limit > 0 && ownerIds.length > 0 ? this.registry(index) : undefined;
    if (sized && sized.chunks >= this.bm25ThreadMinChunks && this.bm25Thread?.available()) {
      inThread = this.bm25Thread.rank(request);
      // Awaited below; an embedding or a vector leg that throws first leaves it handled.
      inThread.catch(() => undefined);
    }
    // An embedding given as it is is used at once: the snapshot begins in this turn of the event loop, as before.
    const embedding = query.embedding instanceof Promise ? await query.embedding : query.embedding;
    // Read before the snapshot begins (owner-documents.ts).
    const version = mode === 'bm25' ? '' : this.ownerDocuments.current();
    this.db.exec('BEGIN');
    try {
      const record = this.existing(index);
      if (mode !== 'bm25') assertQueryEmbedding(embedding, record.dimensions);
      if (limit === 0 || ownerIds.length === 0) return [];
      let bm25Ids: number[] | null = null;
      if (mode !== 'vector' && !inThread)
        bm25Ids = this.bm25Leg(index, record, request.text, ownerIds, tagIds, candidates);
      if (mode !== 'bm25')
        vectorIds = this.vectorLeg(index, record, version, embedding, ownerIds, tagIds, candidates);
      if (!inThread) return this.hits(index, mode, bm25Ids, vectorIds, limit);
    } finally {
      this.db.exec('COMMIT');
    }
    // Out of the transaction: the event loop is free until the thread answers, unless its answer came while the
    // vector leg ran (taken at once). A thread that failed is ranked here.
    this.bm25Thread?.settleArrived();
    const ranked = await inThread.catch(() => (this.registry(index) ? this.bm25Ranks(request) : []));
    this.db.exec('BEGIN');
    try {
      // The chunks are read in this snapshot: one deleted since either leg read its own is not returned, and an
      // index dropped meanwhile (a reindex's old one) has none left to return.
      if (!this.registry(index)) return [];
      return this.hits(index, mode, [...ranked], vectorIds, limit);
    } finally {
      this.db.exec('COMMIT');
    }
  }

  /**
   * A BM25 leg in a read transaction of its own: the chunk rowids best first (the BM25 thread's work; see
   * bm25-thread.ts). Not part of the SearchIndex port.
   */
  bm25Ranks(request: Bm25Request): number[] {
    this.db.exec('BEGIN');
    try {
      const record = this.existing(request.index);
      return this.bm25Leg(
        request.index,
        record,
        request.text,
        request.ownerIds,
        request.tagIds,
        request.candidates,
      );
    } finally {
      this.db.exec('COMMIT');
    }
  }

  /** The legs' rowids fused (reciprocal rank fusion), the best `limit` read as hits from the current snapshot. */
  private hits(
    index: string,
    mode: 'hybrid' | 'bm25' | 'vector',
    bm25Ids: number[] | null,
    vectorIds: number[] | null,
    limit: number,
  ): SearchHit[] {
    const lists = [bm25Ids, vectorIds].filter((list): list is number[] => list !== null);
    const fused = reciprocalRankFusion(lists).slice(0, limit);
    if (fused.length === 0) return [];
    const rows = new Map(
      this.all<ChunkRow>(
        `SELECT id, chunk_id, document_id, document_name, section_path, start, "end", text
         FROM ${tables(index).chunks} WHERE id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(fused.map((item) => item.id)),
      ).map((row) => [row.id, row]),
    );
    const bm25At = mode === 'vector' ? -1 : 0;
    const vectorAt = mode === 'vector' ? 0 : mode === 'bm25' ? -1 : 1;
    return fused.flatMap(({ id, score, ranks }) => {
      // Every id is looked up in this snapshot's rows; a chunk that is not in it is never returned.
      const row = rows.get(id);
      if (!row) return [];
      return {
        chunkId: row.chunk_id,
        documentId: row.document_id,
        documentName: row.document_name,
        sectionPath: JSON.parse(row.section_path) as string[],
        start: row.start,
        end: row.end,
        text: row.text,
        score,
        bm25Rank: bm25At < 0 ? null : ranks[bm25At]!,
        vectorRank: vectorAt < 0 ? null : ranks[vectorAt]!,
      };
    });
  }

  async setLive(alias: string, index: string): Promise<void> {
    assertIndexName(alias, 'alias');
    assertIndexName(index);
    this.write(() => {
      this.existing(index);
      this.run(
        `INSERT INTO search_aliases (alias, index_name) VALUES (?, ?)
         ON CONFLICT (alias) DO UPDATE SET index_name = excluded.index_name`,
        alias,
        index,
      );
    });
  }

  async liveIndex(alias: string): Promise<string | null> {
    assertIndexName(alias, 'alias');
    return (
      this.get<{ index_name: string }>('SELECT index_name FROM search_aliases WHERE alias = ?', alias)
        ?.index_name ?? null
    );
  }

  async dropIndex(name: string): Promise<void> {
    assertIndexName(name);
    this.write(() => {
      const record = this.registry(name);
      if (!record) return;
      const live = this.get<{ alias: string }>('SELECT alias FROM search_aliases WHERE index_name = ?', name);
      if (live) {
        throw new ConflictError(
          'search_index_live',
          `Search index '${name}' is live for '${live.alias}': switch the alias before dropping it`,
        );
      }
      const t = tables(name);
      for (const sql of [...this.statementCache.keys()]) {
        if (sql.includes(`"${name}__`)) {
          this.statementCache.delete(sql);
        }
      }
      this.db.exec(`
        DROP TABLE IF EXISTS ${t.vocab}; DROP TABLE IF EXISTS ${t.fts}; DROP TABLE IF EXISTS ${t.tags};
        DROP TABLE IF EXISTS ${t.chunks}; DROP TABLE IF EXISTS ${t.documents};
        DROP TABLE IF EXISTS ${segmentsTable(name)};
      `);
      this.segmented.delete(name);
      this.run('DELETE FROM search_indexes WHERE name = ?', name);
      this.run('DELETE FROM search_erasures WHERE index_name = ?', name);
      this.vectorCache.forget(`${record.incarnation}:`);
      this.termStats.delete(record.incarnation);
      this.ann.forget(record.incarnation);
      this.bm25Memory?.forget(record.incarnation);
      // Whichever thread or process holds the postings, their file goes with the index.
      if (this.bm25Directory) removeSnapshot(this.bm25Directory, record.incarnation);
    });
    this.purgeWal();
  }

  async stats(index: string): Promise<SearchIndexStats> {
    assertIndexName(index);
    const { chunks, documents } = this.existing(index);
    return { chunks, documents };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.erasure) {
      clearTimeout(this.erasure.timer);
      this.erasure = null;
      this.eraseDeletedTerms();
    }
    this.closed = true;
    this.bm25Memory?.close();
    await this.ann.close();
    await this.bm25Thread?.close();
    await this.stopCheckpoints?.();
    this.statementCache.clear();
    this.db.close();
  }

  /** The approximate-nearest-neighbour graphs: building (with progress) or serving. */
  annProgress(): AnnProgress[] {
    return this.ann.progress();
  }

  /** Whether large indexes' BM25 legs are ranked in the BM25 thread now (it started and said it is ready). */
  bm25ThreadReady(): boolean {
    return this.bm25Thread?.isReady ?? false;
  }

  /** The in-memory BM25 postings: building or serving (see bm25-memory.ts). */
  bm25MemoryProgress(): Bm25MemoryProgress[] {
    return this.bm25Memory?.progress() ?? [];
  }

  /** Resolves once the in-memory BM25 builds started so far have finished. */
  async bm25MemorySettled(): Promise<void> {
    await this.bm25Memory?.settled();
  }

  /** Resolves once the deletions made so far are erased from the FTS5 segments (see DEFAULT_ERASURE_DELAY_MS). */
  async erasureSettled(): Promise<void> {
    await this.erasure?.done;
  }

  /** Resolves once the graph builds started so far have finished. */
  async annSettled(): Promise<void> {
    await this.ann.settled();
  }

  /**
   * Chunk rowids best first by bm25(). On a large index, query words found in at least half the chunks are left out
   * of the MATCH when rarer words of the query match something: FTS5 gives such words its floor IDF (1e-6), so they
   * add nothing to a score, yet matching them scores nearly every row. What is lost is only the tail of chunks that
   * hold nothing but those words, at near-zero scores. A query of such words alone, or whose rarer words match
   * nothing, runs in full.
   *
   * bm25() costs FTS5 about as much per matched row as anything else in a search (instance lists and the row's
   * size), and words found in a few percent of the chunks ("what", "about") match a large share of a big owner's
   * rows. So the remaining words are split into rare ones and frequent ones (FREQUENT_SHARES), and only rows holding
   * a rare word are scored, in two MATCHes (with a frequent word too, and the rare words without one or alone) that
   * give each row of the best the very score of the whole query. A row holding frequent words only scores at most
   * the sum of their IDFs × (k1 + 1); when the weakest of the best `candidates` rows beats that, no such row can
   * enter the list, and it is the whole query's, ties and all. Otherwise the split is tried again with fewer words
   * counted frequent, then the whole query runs.
   */
  // Over 100 lines on purpose: the BM25 leg's pruning and its fall-backs share the query's plan.
  private bm25Leg(
    index: string,
    record: IndexRecord,
    text: string,
    ownerIds: readonly string[],
    tagIds: readonly string[] | null,
    candidates: number,
  ): number[] {
    const terms = queryTerms(text);
    if (terms.length === 0) return [];
    const fromMemory = this.bm25Memory?.rank(record, this.bm25Source(index), {
      words: terms,
      ownerIds,
      tagIds,
      candidates,
      held: () => this.ownerChunks(index, ownerIds),
    });
    if (fromMemory) return fromMemory;
    const t = tables(index);
    const ownerTokens = ownerIds.length <= MAX_OWNER_TOKENS ? ownerIds : null;
    const statement = (filter: OwnerFilter) =>
      `SELECT ${t.fts}.rowid AS id, bm25(${t.fts}, 1.0, 0.0) AS score FROM ${t.fts}
       ${filter === 'join' ? `JOIN ${t.chunks} c ON c.id = ${t.fts}.rowid` : ''}
       WHERE ${t.fts} MATCH ? ${filter === 'join' ? 'AND c.owner_id IN (SELECT value FROM json_each(?))' : ''}
       ${tagIds ? `AND ${t.fts}.rowid IN (SELECT chunk FROM ${t.tags} WHERE tag_id IN (SELECT value FROM json_each(?)))` : ''}
       ORDER BY score, ${t.fts}.rowid LIMIT ?`;
    // How the owners are kept to (an owner phrase adds nothing to a score: its weight is 0, so every filter gives the
    // same scores). Their tokens in the MATCH make FTS5 walk their whole posting list (bm25() counts every phrase's
    // rows for its IDF, and intersects): fine for owners of a few chunks, ~10 ms per MATCH for 100,000. A join
    // checks each matched row instead, ~25 times a posting's cost, so it wins when the words match far fewer rows
    // than the owners hold; and when the owners hold every chunk of the index there is nothing to check.
    let held: number | undefined;
    const filterFor = (rows: number): OwnerFilter => {
      held ??= this.ownerChunks(index, ownerIds);
      if (held === record.chunks) return 'none';
      if (!ownerTokens) return 'join';
      return held <= JOIN_ROW_COST * rows ? 'tokens' : 'join';
    };
    const ranked = (words: readonly string[], others?: OtherTerms, filter?: OwnerFilter) => {
      const using = filter ?? (ownerTokens ? 'tokens' : 'join');
      return this.all<{ id: number; score: number }>(
        statement(using),
        matchExpression(words, using === 'tokens' ? ownerTokens : null, others),
        ...(using === 'join' ? [json(ownerIds)] : []),
        ...(tagIds ? [json(tagIds)] : []),
        candidates,
      );
    };
    const ids = (rows: readonly { id: number }[]) => rows.map((row) => row.id);
    if (record.chunks < PRUNE_MIN_CHUNKS) return ids(ranked(terms));
    const frequencies = new Map(terms.map((term) => [term, this.documentFrequency(index, record, term)]));
    const informative = terms.filter((term) => 2 * frequencies.get(term)! < record.chunks);
    const words = informative.length === 0 ? terms : informative;
    const frequency = (term: string) => frequencies.get(term)!;
    // An owner token typed as a word is never counted frequent: its fts5vocab count includes the owner column. The
    // frequent words go last, rarest first, in every MATCH below: the same phrase order, so the same scores.
    const frequent = words
      .filter(
        (term) =>
          frequency(term) >= FREQUENT_SHARES[0]! * record.chunks && !OWNER_TOKEN_SHAPE.test(foldTerm(term)),
      )
      .sort((a, b) => frequency(a) - frequency(b));
    const ordered = [...words.filter((term) => !frequent.includes(term)), ...frequent];
    const rows = (list: readonly string[]) => list.reduce((sum, term) => sum + frequency(term), 0);
    let found: number[] | null = null;
    const shares = record.chunks >= this.bm25SplitMinChunks ? FREQUENT_SHARES : [];
    for (const share of shares) {
      const high = frequent.filter((term) => frequency(term) >= share * record.chunks);
      const low = ordered.slice(0, ordered.length - high.length);
      // The split's two MATCHes return rows holding a rarer word, at most the sum of their postings: when that is
      // fewer than the candidates, the bound below cannot hold, and they would only be read in vain.
      if (low.length === 0 || high.length === 0 || rows(low) < candidates) continue;
      const filter = filterFor(rows(low));
      // Rows holding a frequent word too are scored with it. The others are scored by the rarer words alone, which
      // is their whole-query score (a word a row lacks adds exactly 0): matched `NOT` the frequent words when those
      // are few, or else alone, sparing FTS5 the frequent words' posting lists (their IDF, the NOT) at the price of
      // scoring the rows that hold both again, lower. Such a row is either among the first MATCH's best, which
      // gives its true score (kept below), or beaten there by `candidates` rows, so it cannot enter the list.
      const alone = rows(low) * RARE_ALONE_RATIO <= rows(high);
      const byId = new Map<number, number>();
      for (const row of [
        ...ranked(low, { terms: high, present: true }, filter),
        ...ranked(low, alone ? undefined : { terms: high, present: false }, filter),
      ])
        if (!byId.has(row.id)) byId.set(row.id, row.score);
      const best = [...byId]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => a.score - b.score || a.id - b.id)
        .slice(0, candidates);
      const ceiling = high.reduce(
        (sum, term) => sum + (BM25_K1 + 1) * bm25Idf(record.chunks, frequency(term)),
        0,
      );
      // bm25() is negated: the best row has the lowest value.
      if (best.length === candidates && -best[candidates - 1]!.score > ceiling) {
        found = ids(best);
        break;
      }
    }
    found ??= ids(ranked(ordered, undefined, filterFor(rows(words))));
    return found.length > 0 || words.length === terms.length
      ? found
      : ids(ranked(terms, undefined, filterFor(rows(terms))));
  }

  /**
   * How many chunks hold the word, from fts5vocab (which walks the word's posting list, as costly as matching it),
   * remembered for a while: the answer only decides which words are worth matching.
   */
  private documentFrequency(index: string, record: IndexRecord, term: string): number {
    const now = Date.now();
    let stats = this.termStats.get(record.incarnation);
    if (
      !stats ||
      now - stats.at > TERM_STATS_TTL_MS ||
      Math.abs(record.chunks - stats.total) > stats.total / 10
    ) {
      stats = { total: record.chunks, at: now, frequencies: new Map() };
      this.termStats.set(record.incarnation, stats);
    }
    const folded = foldTerm(term);
    let frequency = stats.frequencies.get(folded);
    if (frequency === undefined) {
      frequency =
        this.get<{ doc: number }>(`SELECT doc FROM ${tables(index).vocab} WHERE term = ?`, folded)?.doc ?? 0;
      if (stats.frequencies.size >= MAX_CACHED_TERMS) stats.frequencies.clear();
      stats.frequencies.set(folded, frequency);
    }
    return frequency;
  }

  /** What the in-memory BM25 postings read of the index (bm25-memory.ts), each in the caller's transaction. */
  private bm25Source(index: string): Bm25Source {
    const t = tables(index);
    return {
      read: (work) => {
        this.db.exec('BEGIN');
        try {
          return work();
        } finally {
          this.db.exec('COMMIT');
        }
      },
      incarnation: () => this.registry(index)?.incarnation ?? null,
      documentsAfter: (after) =>
        this.all<{ doc_rowid: number; owner_id: string; first_chunk: number; chunk_count: number }>(
          `SELECT doc_rowid, owner_id, first_chunk, chunk_count FROM ${t.documents}
           WHERE doc_rowid > ? AND chunk_count > 0 ORDER BY doc_rowid`,
          after,
        ).map((row): MemoryDocument => ({
          docRowid: row.doc_rowid,
          ownerId: row.owner_id,
          first: row.first_chunk,
          count: row.chunk_count,
        })),
      documentRowids: () =>
        this.all<{ doc_rowid: number }>(`SELECT doc_rowid FROM ${t.documents} WHERE chunk_count > 0`).map(
          (row) => row.doc_rowid,
        ),
      lastDocument: () =>
        this.get<{ last: number | null }>(`SELECT max(doc_rowid) AS last FROM ${t.documents}`)?.last ?? 0,
      // The document row is read in the same snapshot as its chunks: while it exists, those rows are its own.
      texts: (document) =>
        this.get(`SELECT 1 FROM ${t.documents} WHERE doc_rowid = ?`, document.docRowid)
          ? this.all<{ text: string }>(
              `SELECT text FROM ${t.chunks} WHERE id BETWEEN ? AND ? ORDER BY id`,
              document.first,
              document.first + document.count - 1,
            ).map((row) => row.text)
          : null,
      totals: () =>
        fts5Totals(
          this.get<{ block: Uint8Array }>(`SELECT block FROM "${index}__fts_data" WHERE id = 1`)?.block,
        ),
      tagged: (tagIds) =>
        this.all<{ chunk: number; doc_rowid: number }>(
          `SELECT chunk, doc_rowid FROM ${t.tags} WHERE tag_id IN (SELECT value FROM json_each(?))`,
          json(tagIds),
        ).map((row) => ({ chunk: row.chunk, docRowid: row.doc_rowid })),
    };
  }

  /** How many chunks the owners hold (the owner index covers it). */
  private ownerChunks(index: string, ownerIds: readonly string[]): number {
    return (
      this.get<{ chunks: number | null }>(
        `SELECT sum(chunk_count) AS chunks FROM ${tables(index).documents}
         WHERE owner_id IN (SELECT value FROM json_each(?))`,
        json(ownerIds),
      )?.chunks ?? 0
    );
  }

  /**
   * Chunk rowids best first by cosine similarity. An owner with at least `ann.minChunks` chunks is searched through
   * its HNSW graph (brought to this snapshot's rows first) when no tag filter applies; every other owner, a tag
   * filter, or a graph still being built, is scanned exactly. Both give cosine similarities of unit vectors, so the
   * owners' candidates merge by score.
   */
  private vectorLeg(
    index: string,
    record: IndexRecord,
    /** OwnerDocuments' version, read before this search's snapshot. */
    version: string,
    embedding: readonly number[] | Float32Array,
    ownerIds: readonly string[],
    tagIds: readonly string[] | null,
    candidates: number,
  ): number[] {
    const query = embedding.length > 0 ? unitVector(embedding) : null;
    if (!query) return [];
    const t = tables(index);
    const top = new TopScores(candidates);
    const exactOwners: string[] = [];
    // One pass over the owner index (it covers it): which owners are big enough for a graph, and their signatures.
    const big = new Map<string, string>();
    if (!tagIds && Number.isFinite(this.annMinChunks)) {
      for (const row of this.all<{ owner_id: string; rows: number; last: number; chunks: number }>(
        `SELECT owner_id, count(*) AS rows, max(doc_rowid) AS last, sum(chunk_count) AS chunks FROM ${t.documents}
         WHERE owner_id IN (SELECT value FROM json_each(?)) AND chunk_count > 0 GROUP BY owner_id`,
        json(ownerIds),
      ))
        if (row.chunks >= this.annMinChunks) big.set(row.owner_id, `${row.rows}:${row.last}`);
    }
    for (const ownerId of ownerIds) {
      const signature = big.get(ownerId);
      const found = signature ? this.annSearch(index, record, ownerId, signature, query, candidates) : null;
      if (!found) {
        exactOwners.push(ownerId);
        continue;
      }
      for (let i = 0; i < found.ids.length; i++) top.offer(found.ids[i]!, found.scores[i]!);
    }
    if (exactOwners.length === 0) return top.best();
    return this.exactLeg(index, record, version, query, exactOwners, tagIds, candidates, top);
  }

  /**
   * The vector leg over the owners without a graph, into `top`: each document's int8 codes first (cached), the vectors
   * the codes cannot rule out scored exactly; documents not cacheable are scanned exactly here.
   */
  private exactLeg(
    index: string,
    record: IndexRecord,
    version: string,
    query: Float32Array,
    exactOwners: readonly string[],
    tagIds: readonly string[] | null,
    candidates: number,
    top: TopScores,
  ): number[] {
    const t = tables(index);
    const coarse = int8Available(record.dimensions) ? new Int8Scan(query, candidates) : null;
    // The same documents searched again, every one cached since: their scan, prepared by the search before.
    const preparedKey =
      coarse && !tagIds ? `${version}\n${record.incarnation}\n${exactOwners.join('\n')}` : null;
    const prepared = preparedKey ? this.vectorCache.prepared(preparedKey) : null;
    if (prepared) {
      coarse!.offerRun(prepared);
      coarse!.exact(top);
      return top.best();
    }
    const scanner = new VectorScanner(query);
    const cacheVersion = this.vectorCache.version;
    let parts: { block: Int8Block; floats: Float32Array; first: number; entry: CachedVectors }[] | null =
      preparedKey ? [] : null;
    const tagged = tagIds
      ? new Set(
          this.all<{ chunk: number }>(
            `SELECT chunk FROM ${t.tags} WHERE tag_id IN (SELECT value FROM json_each(?))
             AND doc_rowid IN (SELECT doc_rowid FROM ${t.documents} WHERE owner_id IN (SELECT value FROM json_each(?)))`,
            json(tagIds),
            json(exactOwners),
          ).map((row) => row.chunk),
        )
      : null;
    const keep = tagged ? (id: number) => tagged.has(id) : undefined;
    const documents = [...this.scannedDocuments(index, record, version, exactOwners, tagIds)];
    this.vectorCache.beginSearch(documents, record.dimensions);
    for (const { docRowid, first, count, key } of documents) {
      let cached = this.vectorCache.get(key);
      let packed = cached?.vectors ?? null;
      if (!cached && coarse && !this.vectorCache.keepsFloats(count, record.dimensions))
        cached = this.vectorCache.setCodes(
          key,
          vectorPieces(this.segmentStatements, index, t.documents, docRowid),
          count,
          record.dimensions,
        );
      if (!cached) {
        packed = unpackVectors(this.documentVectors(index, docRowid));
        cached = this.vectorCache.set(key, packed, count, record.dimensions);
      }
      if (coarse && cached?.codes) {
        // A prepared scan holds the cache's own floats (a document scanned from floats it did not keep has none).
        if (cached.vectors)
          parts?.push({ block: cached.codes, floats: cached.vectors, first, entry: cached });
        else parts = null;
        // Floats given up by the cache are read back only for the rows that survive the codes' pass (their segments).
        coarse.offer(
          cached.codes,
          packed ??
            vectorReader(this.segmentStatements, index, t.documents, docRowid, first, record.dimensions),
          first,
          keep,
        );
        continue;
      }
      parts = null;
      packed ??= unpackVectors(this.documentVectors(index, docRowid));
      const scores = scanner.score(packed, count);
      for (let i = 0; i < count; i++) {
        if (keep && !keep(first + i)) continue;
        top.offer(first + i, scores[i]!);
      }
    }
    coarse?.exact(top);
    if (parts && preparedKey)
      this.vectorCache.prepare(
        preparedKey,
        cacheVersion,
        parts.map((part) => part.entry),
        Int8Run.of(parts),
      );
    return top.best();
  }

  /**
   * The documents the vector leg scans: the owners' documents with chunks (kept between searches while the index is
   * unchanged, owner-documents.ts), or, with a tag filter, those holding a chunk with one of the tags. The owner index
   * covers both listings: no embedding is read unless the vector cache misses it.
   */
  private scannedDocuments(
    index: string,
    record: IndexRecord,
    version: string,
    ownerIds: readonly string[],
    tagIds: readonly string[] | null,
  ): Iterable<ScannedDocument> {
    const t = tables(index);
    if (tagIds)
      return this.all<{ doc_rowid: number; first_chunk: number; chunk_count: number }>(
        `SELECT doc_rowid, first_chunk, chunk_count FROM ${t.documents}
         WHERE owner_id IN (SELECT value FROM json_each(?)) AND chunk_count > 0
         AND doc_rowid IN (SELECT doc_rowid FROM ${t.tags} WHERE tag_id IN (SELECT value FROM json_each(?)))`,
        json(ownerIds),
        json(tagIds),
      ).map((row) => ({
        docRowid: row.doc_rowid,
        first: row.first_chunk,
        count: row.chunk_count,
        key: `${record.incarnation}:${row.doc_rowid}`,
      }));
    return ownerIds.flatMap((ownerId) =>
      this.ownerDocuments.of(version, record.incarnation, ownerId, () =>
        this.all<{ doc_rowid: number; first_chunk: number; chunk_count: number }>(
          `SELECT doc_rowid, first_chunk, chunk_count FROM ${t.documents} WHERE owner_id = ? AND chunk_count > 0`,
          ownerId,
        ),
      ),
    );
  }

  /** The owner's nearest chunks through its graph, or null while its graph is not ready. */
  private annSearch(
    index: string,
    record: IndexRecord,
    ownerId: string,
    signature: string,
    query: Float32Array,
    candidates: number,
  ): { ids: number[]; scores: number[] } | null {
    const t = tables(index);
    return this.ann.search(
      index,
      record.incarnation,
      ownerId,
      record.dimensions,
      signature,
      {
        listDocuments: () =>
          this.all<{ doc_rowid: number; first_chunk: number; chunk_count: number }>(
            `SELECT doc_rowid, first_chunk, chunk_count FROM ${t.documents}
             WHERE owner_id = ? AND chunk_count > 0`,
            ownerId,
          ).map((row): OwnerDocument => ({
            docRowid: row.doc_rowid,
            first: row.first_chunk,
            count: row.chunk_count,
          })),
        vectors: (docRowid) => this.documentVectors(index, docRowid),
      },
      query,
      candidates,
    );
  }

  private documentVectors(index: string, docRowid: number): Uint8Array {
    return documentVectors(this.segmentStatements, index, tables(index).documents, docRowid);
  }

  /** Creates `<ix>__vectors` in an index made before it existed (once per process; inside a write). */
  private ensureSegments(index: string): void {
    if (this.segmented.has(index)) return;
    this.db.exec(createSegmentsTable(index, true));
    this.segmented.add(index);
  }

  /**
   * Deletes the document's chunks, FTS rows, tags and row; returns how many chunks it had. The index's saved BM25
   * postings (bm25-snapshot.ts) go too, whichever thread or process holds them: no file keeps a removed document's
   * words (the holder saves them again without it when it closes or builds).
   */
  private removeDocument(index: string, document: DocumentRow): number {
    const t = tables(index);
    if (this.bm25Directory) removeSnapshot(this.bm25Directory, this.existing(index).incarnation);
    const last = document.first_chunk + document.chunk_count - 1;
    for (let id = document.first_chunk; id <= last; id++)
      this.run(`DELETE FROM ${t.fts} WHERE rowid = ?`, id);
    this.ensureSegments(index);
    deleteSegments(this.segmentStatements, index, document.first_chunk, last);
    this.run(`DELETE FROM ${t.tags} WHERE chunk BETWEEN ? AND ?`, document.first_chunk, last);
    this.run(`DELETE FROM ${t.chunks} WHERE id BETWEEN ? AND ?`, document.first_chunk, last);
    this.run(`DELETE FROM ${t.documents} WHERE doc_rowid = ?`, document.doc_rowid);
    return document.chunk_count;
  }

  private scheduleErasure(): void {
    if (this.erasure || this.closed) return;
    let timer!: NodeJS.Timeout;
    const done = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.erasure = null;
        try {
          this.eraseDeletedTerms();
        } catch {
          // Still pending in search_erasures (the file busy beyond busy_timeout): the next pass tries again.
          this.scheduleErasure();
        } finally {
          resolve();
        }
      }, this.erasureDelayMs);
    });
    this.erasure = { timer, done };
  }

  /**
   * Rewrites the FTS5 segments of every index with deletions not erased yet: a contentless_delete table records a
   * deletion as a tombstone and its segments keep every term of the row until they are merged (FTS5's secure-delete
   * option does not change that for such a table, probed). Merging every segment into one costs time in proportion
   * to the whole index (bench/search-erasure.ts, 2-core VM: ≈30 ms at 1,000 chunks, ≈150–220 ms at 10,000,
   * ≈0.8–1.6 s at 100,000), hence one pass for the deletions of a whole delay. secure_delete zeroes the freed pages
   * and purgeWal their copies in the log. Pending indexes are a table, so a process that stops before its pass
   * leaves the work to the next one that opens the file.
   */
  private eraseDeletedTerms(): void {
    const pending = () => this.all<{ index_name: string }>('SELECT index_name FROM search_erasures');
    if (pending().length === 0) return;
    this.write(() => {
      // Read again in the transaction: another process (or the BM25 thread) may have erased them meanwhile.
      for (const { index_name: index } of pending()) {
        if (this.registry(index)) {
          const fts = tables(index).fts;
          this.run(`INSERT INTO ${fts} (${fts}) VALUES ('optimize')`);
        }
        this.run('DELETE FROM search_erasures WHERE index_name = ?', index);
      }
    });
    this.purgeWal();
  }

  private adjustCounts(index: string, chunks: number, documents: number): void {
    this.run(
      'UPDATE search_indexes SET chunks = chunks + ?, documents = documents + ? WHERE name = ?',
      chunks,
      documents,
      index,
    );
  }

  private registry(name: string): IndexRecord | undefined {
    return this.get(
      'SELECT dimensions, chunks, documents, incarnation FROM search_indexes WHERE name = ?',
      name,
    );
  }

  private existing(name: string): IndexRecord {
    const found = this.registry(name);
    if (!found) throw new NotFoundError('Search index', name);
    return found;
  }

  /**
   * Copies the WAL into the database and truncates it to nothing: the WAL's frames hold deleted text as it was
   * (secure_delete zeroes the pages, not their older copies in the log). A reader holding an old snapshot may keep a
   * frame until its next purge; every deletion purges again.
   */
  private purgeWal(): void {
    if (!this.closed) truncateWal(this.db);
  }

  private write(work: () => void): void {
    this.ownerDocuments.written();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      // A vectors table created in the transaction is gone with it: the next write checks again.
      this.segmented.clear();
      throw error;
    }
  }

  private statement(sql: string): StatementSync {
    let statement = this.statementCache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  }

  private run(sql: string, ...params: SQLInputValue[]) {
    return this.statement(sql).run(...params);
  }

  private get<T>(sql: string, ...params: SQLInputValue[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  private all<T>(sql: string, ...params: SQLInputValue[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }
}
