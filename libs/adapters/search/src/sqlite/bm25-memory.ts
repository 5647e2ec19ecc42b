// BM25 over a large index from postings held in memory, ranked exactly as FTS5's bm25() ranks the whole query.
//
// FTS5 answers a MATCH by reading every matched row's instance list and size from its b-tree: on 100,000 chunks of
// one owner a question's BM25 leg took 12 ms at the median and 31 ms at p90 even after bm25Leg's pruning. Here each
// word's postings are two typed arrays (rows and counts), each row's size (its tokens, as FTS5's docsize counts
// them) one more, and a question scores every row of its words in about 2 ms at 100,000 chunks. The arithmetic is
// fts5_aux.c's: IDF log((N − n + 0.5) / (n + 0.5)) (1e-6 when not positive), k1 1.2, b 0.75, a row's size and the
// average over all columns (the owner column's one token included), each word's part added in the query's word
// order; ties go to the lower row id, as `ORDER BY score, rowid` does. The words are FTS5's own tokens
// (fts5-tokens.ts), so the scores are bm25()'s, and the ranking is the one a MATCH of the whole query returns (a
// contract test compares them).
//
// An index's postings are built from its chunks' stored text the first time a search of it needs them: in slices
// between requests (one read transaction each, an event-loop turn between them), while FTS5 answers; an index small
// enough is built at once. Each search brings them to its own snapshot first: document rows are never changed (an
// upsert writes a new row, row ids are never reused), so the rows above the last one seen are the additions, and a
// document count that does not add up means removals, found by listing the row ids. Removed rows are only marked;
// once they are a quarter of all rows, or when a search finds more additions than it should tokenize itself, the
// postings are built again in the background while the current ones (or FTS5) answer. Postings of an index not
// searched for a while, or beyond the memory budget, are dropped.
// Over 300 lines on purpose: keeping the in-memory postings in step with the index and deciding when they
// answer are one cache's rules.
import { type Fts5Tokens } from './fts5-tokens.js';
import { Bm25Postings, type Fts5Totals, type MemoryDocument } from './bm25-postings.js';
import { loadSnapshot, saveSnapshot } from './bm25-snapshot.js';

export type { MemoryDocument } from './bm25-postings.js';

/** A search tokenizes at most this many added chunks itself; more are left to a background build. */
const INLINE_CHUNKS = 1_000;
/** One background slice reads and tokenizes at least one document and at most about this many chunks. */
const SLICE_CHUNKS = 1_000;
/** Removed rows above this share of all rows: the postings are built again. */
const COMPACT_SHARE = 0.25;
/** A build checks its size against the budget every this many slices. */
const BUDGET_CHECK_SLICES = 16;
/** Postings of an index not searched for this long are dropped. */
const IDLE_MS = 30 * 60_000;

/** Lets the event loop run (requests, I/O) before the next slice. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** What the postings read from the index's tables (SqliteSearchIndex gives one per index). */
export interface Bm25Source {
  /** Runs the work in a read transaction of its own (a background slice). */
  read<T>(work: () => T): T;
  /** The index's incarnation in the current snapshot, null when it no longer exists. */
  incarnation(): string | null;
  /** The documents with chunks whose row id is above `after`, ascending. */
  documentsAfter(after: number): MemoryDocument[];
  /** The row ids of every document with chunks. */
  documentRowids(): number[];
  /** The highest document row id ever written to the index (0 when none). */
  lastDocument(): number;
  /** The text of the document's chunks in row order, or null when the document row is gone in this snapshot. */
  texts(document: MemoryDocument): string[] | null;
  /** FTS5's row count and tokens of all columns, from its averages record. */
  totals(): Fts5Totals;
  /** The chunks carrying one of the tags (row id and document row). */
  tagged(tagIds: readonly string[]): { chunk: number; docRowid: number }[];
}

/** The registry's figures for the index in the current snapshot. */
export interface MemoryIndexRecord {
  readonly incarnation: string;
  readonly chunks: number;
  readonly documents: number;
}

export interface MemoryRankRequest {
  /** The query's words as FTS5 gets them (queryTerms), in order. */
  readonly words: readonly string[];
  readonly ownerIds: readonly string[];
  readonly tagIds: readonly string[] | null;
  readonly candidates: number;
  /** How many chunks the owners hold (asked before postings are built for them: small owners are FTS5's). */
  readonly held: () => number;
}

export interface Bm25MemoryOptions {
  /** Indexes of at least this many chunks are ranked from memory. */
  readonly minChunks: number;
  /** An index of at most this many chunks is built at its first search, in that search. */
  readonly inlineChunks?: number;
  /** Memory for all indexes' postings; the least recently searched are dropped beyond it. */
  readonly maxBytes: number;
  /** Where the postings are saved (bm25-snapshot.ts); null: never saved (an in-memory database). */
  readonly directory: string | null;
}

interface Entry {
  postings: Bm25Postings | null;
  building: boolean;
  /** Its postings would exceed the whole budget: FTS5 ranks it. */
  tooLarge: boolean;
  /** Whether the saved file was looked for; whether the postings changed since they were saved or loaded. */
  loaded: boolean;
  changed: boolean;
  /** The last search's view of the index (close saves changed postings through it). */
  source: Bm25Source;
  lastUsed: number;
}

/** A build or rebuild under way or finished, for tests and the bench. */
export interface Bm25MemoryProgress {
  readonly incarnation: string;
  readonly state: 'building' | 'ready';
  readonly rows?: number;
  /** Memory the postings hold, roughly. */
  readonly bytes?: number;
  /** Set when this process built them (not when they were loaded from their file). */
  readonly buildMs?: number;
}

/** The postings of every large index this connection searches (see the file's header). */
export class Bm25Memory {
  private readonly entries = new Map<string, Entry>();
  private readonly builds = new Set<Promise<void>>();
  private readonly buildMs = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly tokens: Fts5Tokens,
    private readonly options: Bm25MemoryOptions,
  ) {}

  /**
   * The chunk row ids best first, ranked from memory in the caller's snapshot; null when FTS5 must answer this one
   * (the index is small, its postings are being built, or a query word is more than one FTS5 token, which a MATCH
   * treats as a phrase).
   */
  rank(record: MemoryIndexRecord, source: Bm25Source, request: MemoryRankRequest): number[] | null {
    if (this.closed || record.chunks < this.options.minChunks) return null;
    const now = Date.now();
    this.dropIdle(now);
    const entry = this.entries.get(record.incarnation) ?? {
      postings: null,
      building: false,
      tooLarge: false,
      loaded: false,
      changed: false,
      source,
      lastUsed: now,
    };
    if (entry.tooLarge) return null;
    // Postings are built for owners holding many chunks; a few owners' rows FTS5 finds by intersecting.
    if (!entry.postings && !entry.building && request.held() < this.options.minChunks) return null;
    this.entries.set(record.incarnation, entry);
    entry.lastUsed = now;
    entry.source = source;
    if (!entry.postings && !entry.loaded && this.options.directory) {
      entry.loaded = true;
      entry.postings = loadSnapshot(this.options.directory, record.incarnation);
    }
    const inline = record.chunks <= (this.options.inlineChunks ?? INLINE_CHUNKS);
    if (inline && entry.postings && entry.postings.removedShare > COMPACT_SHARE) entry.postings = null;
    if (inline && !entry.postings) entry.postings = this.buildNow(source);
    const postings = entry.postings;
    if (!postings || !this.bringUp(entry, postings, record, source)) {
      this.buildLater(record.incarnation, entry, source);
      return null;
    }
    if (postings.removedShare > COMPACT_SHARE) this.buildLater(record.incarnation, entry, source);
    if (postings.rowsOf(request.ownerIds) < this.options.minChunks) return null;
    const tokens: string[] = [];
    for (const word of request.words) {
      const wordTokens = this.tokens.tokens(word);
      if (wordTokens.length !== 1) return null;
      tokens.push(wordTokens[0]!);
    }
    const tagged = request.tagIds ? source.tagged(request.tagIds) : null;
    return postings.rank(source.totals(), tokens, request.ownerIds, tagged, request.candidates);
  }

  progress(): Bm25MemoryProgress[] {
    return [...this.entries].map(([incarnation, entry]) =>
      entry.building || !entry.postings
        ? { incarnation, state: 'building' }
        : {
            incarnation,
            state: 'ready',
            rows: entry.postings.rowCount,
            bytes: entry.postings.bytes,
            buildMs: this.buildMs.get(incarnation),
          },
    );
  }

  /** Resolves once the builds started so far have finished. */
  async settled(): Promise<void> {
    while (this.builds.size > 0) await Promise.all([...this.builds]);
  }

  forget(incarnation: string): void {
    this.entries.delete(incarnation);
    this.buildMs.delete(incarnation);
  }

  /** Saves the postings that changed since they were saved (compacted: nothing removed in the file), then stops. */
  close(): void {
    this.closed = true;
    for (const [incarnation, entry] of this.entries)
      if (entry.postings && entry.changed && this.options.directory)
        try {
          if (entry.source.read(() => entry.source.incarnation()) === incarnation)
            saveSnapshot(this.options.directory, incarnation, entry.postings.compacted());
        } catch {
          // The next start rebuilds what it cannot load.
        }
    this.entries.clear();
  }

  /**
   * Brings the postings to the caller's snapshot: false when that takes tokenizing more than INLINE_CHUNKS chunks
   * (the caller builds them again in the background).
   */
  private bringUp(
    entry: Entry,
    postings: Bm25Postings,
    record: MemoryIndexRecord,
    source: Bm25Source,
  ): boolean {
    const last = source.lastDocument();
    const signature = `${record.documents}:${record.chunks}:${last}`;
    if (postings.signature === signature) return true;
    const added = last > postings.lastDocument ? source.documentsAfter(postings.lastDocument) : [];
    if (
      added.reduce((sum, document) => sum + document.count, 0) > (this.options.inlineChunks ?? INLINE_CHUNKS)
    )
      return false;
    // Every document row a removal took was counted here and is no longer in the registry's count.
    if (postings.documentCount + added.length !== record.documents) {
      const present = new Set(source.documentRowids());
      for (const docRowid of postings.documentRowids())
        if (!present.has(docRowid)) {
          postings.remove(docRowid);
          entry.changed = true;
        }
    }
    this.addDocuments(postings, added, source);
    if (added.length > 0) entry.changed = true;
    postings.lastDocument = last;
    postings.signature = signature;
    return true;
  }

  private addDocuments(
    postings: Bm25Postings,
    documents: readonly MemoryDocument[],
    source: Bm25Source,
  ): void {
    for (const document of documents) {
      const texts = source.texts(document);
      if (!texts) continue;
      this.tokens.learn(texts);
      postings.add(document, texts, this.tokens);
    }
  }

  private buildNow(source: Bm25Source): Bm25Postings {
    const postings = new Bm25Postings();
    this.addDocuments(postings, source.documentsAfter(0), source);
    postings.lastDocument = source.lastDocument();
    postings.seal();
    return postings;
  }

  /** Builds the index's postings in slices between requests, then serves them (see the file's header). */
  private buildLater(incarnation: string, entry: Entry, source: Bm25Source): void {
    if (entry.building || this.closed) return;
    entry.building = true;
    const started = performance.now();
    const build = (async () => {
      // Out of the caller's transaction: each slice reads in one of its own.
      await turn();
      if (this.closed) return;
      const postings = new Bm25Postings();
      const listed = source.read(() =>
        source.incarnation() === incarnation
          ? { documents: source.documentsAfter(0), last: source.lastDocument() }
          : null,
      );
      if (!listed) return;
      let next = 0;
      let slices = 0;
      while (next < listed.documents.length) {
        await turn();
        if (this.closed || this.entries.get(incarnation) !== entry) return;
        const slice: { document: MemoryDocument; texts: string[] }[] = [];
        const alive = source.read(() => {
          if (source.incarnation() !== incarnation) return false;
          for (let chunks = 0; next < listed.documents.length && chunks < SLICE_CHUNKS; next++) {
            const document = listed.documents[next]!;
            const texts = source.texts(document);
            if (texts) slice.push({ document, texts });
            chunks += document.count;
          }
          return true;
        });
        if (!alive) return;
        if (++slices % BUDGET_CHECK_SLICES === 0 && postings.bytes > this.options.maxBytes) {
          entry.tooLarge = true;
          return;
        }
        this.tokens.learn(slice.flatMap(({ texts }) => texts));
        for (const { document, texts } of slice) postings.add(document, texts, this.tokens);
      }
      postings.lastDocument = listed.last;
      postings.seal();
      if (this.closed || this.entries.get(incarnation) !== entry) return;
      if (postings.bytes > this.options.maxBytes) {
        entry.tooLarge = true;
        entry.postings = null;
        return;
      }
      entry.postings = postings;
      entry.changed = false;
      this.buildMs.set(incarnation, performance.now() - started);
      if (this.options.directory) saveSnapshot(this.options.directory, incarnation, postings);
      this.keepWithinBudget(incarnation);
    })()
      // A build that fails (the file closed under it) leaves FTS5 to answer; the next search tries again.
      .catch(() => undefined)
      .finally(() => {
        entry.building = false;
        this.builds.delete(build);
      });
    this.builds.add(build);
  }

  private dropIdle(now: number): void {
    for (const [incarnation, entry] of this.entries)
      if (now - entry.lastUsed > IDLE_MS && !entry.building) this.forget(incarnation);
  }

  /** Drops the least recently searched indexes' postings (never `keep`'s) while all of them exceed the budget. */
  private keepWithinBudget(keep: string): void {
    const held = [...this.entries].filter(([, entry]) => entry.postings);
    let bytes = held.reduce((sum, [, entry]) => sum + entry.postings!.bytes, 0);
    for (const [incarnation, entry] of held.sort(([, a], [, b]) => a.lastUsed - b.lastUsed)) {
      if (bytes <= this.options.maxBytes) break;
      if (incarnation === keep) continue;
      bytes -= entry.postings!.bytes;
      entry.postings = null;
    }
  }
}
