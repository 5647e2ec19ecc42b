// One large index's BM25 postings in memory (bm25-memory.ts keeps them in step with the index and decides when they
// answer). Rows are numbered in the order they were added (ordinals); per row its chunk, owner and size. A build adds
// (term, row, count) triples and seals them into one block per array, each term's rows contiguous (a counting sort):
// no per-term arrays to grow, and one pass over them scores a term. The block's rows are packed (bm25-packed.ts: the
// gaps between a term's rows, mostly a byte each), its counts a byte each: ≈ 2.5 bytes a posting, 213 MB at a
// million chunks where Int32 rows made it 432. Rows added after the seal go to small per-term
// tails; a removed document's rows are only marked. compacted() makes a sealed copy of the live rows alone (for the
// snapshot file and when removed rows pile up). rank() gives fts5_aux.c's bm25() list, operation for operation: the
// rarer words are scored over all their rows first; the frequent ones (a large share of the rows, a small IDF) only
// in the rows that may still be among the best, since a row holding none of the rarer words cannot beat the
// `candidates`-th best once what the frequent words could add is below it (MaxScore); those rows are narrowed the
// same way word by word, then the few left are summed again in the query's word order, as FTS5 sums them. At
// 100,000 chunks a query of common words and a few rarer ones reads ~5,000 rows of its middling words and ~100 of
// "the" instead of every row of each.
// Over 300 lines on purpose: the postings' layout, its build, tails, compaction and FTS5's exact bm25()
// arithmetic read the same arrays.
import {
  eachGroup,
  eachOrdinal,
  GROUP,
  packedBytes,
  packOrdinals,
  walkOrdinals,
  type PackedOrdinals,
} from './bm25-packed.js';
import type { Fts5Tokens } from './fts5-tokens.js';
import { TopScores } from './packed-vectors.js';

/** FTS5's bm25() constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;
/**
 * A count above what a byte holds is kept exactly beside it (largeCounts): a word more than 254 times in one chunk
 * is rare, and a byte a posting instead of two is 80 MB less at a million chunks.
 */
const TF_CAP = 0xff;
/** What a posting takes once sealed, a little over: its count's byte and its packed row (≈ 1.15 bytes measured). */
const SEALED_POSTING_BYTES = 2.5;

/** A document row of the index that has chunks: its chunks are rows first … first + count − 1. */
export interface MemoryDocument {
  readonly docRowid: number;
  readonly ownerId: string;
  readonly first: number;
  readonly count: number;
}

/**
 * The figures FTS5's bm25() takes from the table's averages record: its row count and the tokens of all its columns.
 * Both count every row ever inserted: a delete from a contentless table does not take them back (measured), so
 * they are read from FTS5 (SqliteSearchIndex's source), never counted here.
 */
export interface Fts5Totals {
  readonly rows: number;
  readonly tokens: number;
}

type Growable = Int32Array | Uint32Array | Uint8Array;
/** A copy at least `length` long (doubling), the contents kept. */
function grow<T extends Growable>(array: T, length: number): T {
  let size = Math.max(array.length, 16);
  while (size < length) size *= 2;
  if (size === array.length) return array;
  const larger = new (array.constructor as new (length: number) => T)(size);
  larger.set(array);
  return larger;
}

/** A term's rows added after the seal. */
interface Tail {
  ordinals: Int32Array;
  counts: Uint8Array;
  size: number;
}

/**
 * The sealed block: term t's postings are j = offsets[t] … offsets[t + 1] − 1, their rows ascending in `ordinals`
 * (packed: bm25-packed.ts) and their counts counts[j].
 */
interface Block {
  readonly offsets: Uint32Array<ArrayBuffer>;
  readonly ordinals: PackedOrdinals;
  readonly counts: Uint8Array<ArrayBuffer>;
}

const NO_ORDINALS = packOrdinals(new Uint32Array(1), new Int32Array(0));

/** What a snapshot file holds (bm25-memory.ts writes and reads it). */
export interface PostingsImage {
  readonly header: {
    readonly lastDocument: number;
    readonly rows: number;
    readonly tokens: readonly string[];
    readonly owners: readonly string[];
    readonly largeCounts: readonly (readonly [number, string, number])[];
  };
  readonly offsets: Uint32Array<ArrayBuffer>;
  readonly counts: Uint8Array<ArrayBuffer>;
  readonly groupsOf: Uint32Array<ArrayBuffer>;
  readonly firsts: Int32Array<ArrayBuffer>;
  readonly starts: Uint32Array<ArrayBuffer>;
  readonly gaps: Uint8Array<ArrayBuffer>;
  readonly chunkOf: Int32Array<ArrayBuffer>;
  readonly ownerOf: Int32Array<ArrayBuffer>;
  readonly lengthOf: Uint32Array<ArrayBuffer>;
  /** docRowid, base, first, count per document. */
  readonly documents: Float64Array<ArrayBuffer>;
}

export class Bm25Postings {
  private readonly terms = new Map<string, number>();
  private readonly tokens: string[] = [];
  private block: Block = {
    offsets: new Uint32Array(1),
    ordinals: NO_ORDINALS,
    counts: new Uint8Array(0),
  };
  private sealed = false;
  /** Triples added before the seal. */
  private pendingTerms = new Int32Array(0);
  private pendingOrdinals = new Int32Array(0);
  private pendingCounts = new Uint8Array(0);
  private pending = 0;
  private readonly tails: (Tail | undefined)[] = [];
  private readonly documents = new Map<number, { base: number; first: number; count: number }>();
  private readonly owners = new Map<string, number>();
  private readonly ownerNames: string[] = [];
  /** Rows not removed, per owner. */
  private readonly ownerRows: number[] = [];
  private chunkOf = new Int32Array(0);
  private ownerOf = new Int32Array(0);
  private lengthOf = new Uint32Array(0);
  private removed = new Uint8Array(0);
  /** Counts above TF_CAP, by ordinal and token. */
  private readonly largeCounts = new Map<number, Map<string, number>>();
  private rows = 0;
  private removedRows = 0;
  private epoch = 1;
  /** Per term: rows not removed holding it, as of liveEpoch. */
  private liveRows = new Int32Array(0);
  private liveEpoch = new Int32Array(0);
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);
  /** Scratch for kthLargest. */
  private selection = new Float64Array(0);
  /** Counts of the row being added, by term, and the terms it holds. */
  private rowCounts = new Uint32Array(0);
  private readonly rowTerms: number[] = [];
  /** The highest document row id this reflects, and the snapshot it was last brought to (null: check again). */
  lastDocument = 0;
  signature: string | null = null;

  get documentCount(): number {
    return this.documents.size;
  }

  get rowCount(): number {
    return this.rows - this.removedRows;
  }

  /** Removed rows' share of all rows. */
  get removedShare(): number {
    return this.rows === 0 ? 0 : this.removedRows / this.rows;
  }

  /** Memory held once sealed, roughly (a build's triples are counted at what the seal makes of them). */
  get bytes(): number {
    let bytes =
      packedBytes(this.block.ordinals) + this.block.counts.byteLength + this.block.offsets.byteLength;
    bytes += this.pending * SEALED_POSTING_BYTES;
    bytes += this.chunkOf.byteLength * 3 + this.removed.byteLength + this.scores.byteLength;
    bytes += this.touched.byteLength + this.selection.byteLength;
    bytes += this.liveRows.byteLength * 2 + this.rowCounts.byteLength;
    for (const tail of this.tails) if (tail) bytes += tail.ordinals.byteLength + tail.counts.byteLength + 64;
    for (const token of this.tokens) bytes += 2 * token.length + 80;
    return bytes;
  }

  /** Adds the document's chunks (their texts in row order; the tokenizer has learnt them). */
  add(document: MemoryDocument, texts: readonly string[], tokenizer: Fts5Tokens): void {
    if (this.documents.has(document.docRowid) || texts.length === 0) return;
    const base = this.rows;
    this.reserveRows(base + texts.length);
    const owner = this.owner(document.ownerId);
    this.ownerRows[owner]! += texts.length;
    const { rowTerms } = this;
    let length = 0;
    const count = (token: string) => {
      let term = this.terms.get(token);
      if (term === undefined) term = this.newTerm(token);
      if (this.rowCounts[term]++ === 0) rowTerms.push(term);
      length++;
    };
    texts.forEach((text, i) => {
      const ordinal = base + i;
      length = 0;
      tokenizer.forEach(text, count);
      this.chunkOf[ordinal] = document.first + i;
      this.ownerOf[ordinal] = owner;
      // FTS5's size of a row is over all columns: the owner column holds one token.
      this.lengthOf[ordinal] = length + 1;
      for (const term of rowTerms) {
        const times = this.rowCounts[term]!;
        this.rowCounts[term] = 0;
        this.push(term, ordinal, times);
        if (times >= TF_CAP) {
          let large = this.largeCounts.get(ordinal);
          if (!large) this.largeCounts.set(ordinal, (large = new Map()));
          large.set(this.tokens[term]!, times);
        }
      }
      rowTerms.length = 0;
    });
    this.rows += texts.length;
    this.documents.set(document.docRowid, { base, first: document.first, count: texts.length });
  }

  remove(docRowid: number): void {
    const document = this.documents.get(docRowid);
    if (!document) return;
    this.documents.delete(docRowid);
    for (let ordinal = document.base; ordinal < document.base + document.count; ordinal++) {
      this.removed[ordinal] = 1;
      this.largeCounts.delete(ordinal);
    }
    this.removedRows += document.count;
    this.ownerRows[this.ownerOf[document.base]!]! -= document.count;
    this.epoch++;
  }

  /** How many rows not removed the owners hold. */
  rowsOf(ownerIds: readonly string[]): number {
    let rows = 0;
    for (const ownerId of new Set(ownerIds)) {
      const owner = this.owners.get(ownerId);
      if (owner !== undefined) rows += this.ownerRows[owner]!;
    }
    return rows;
  }

  documentRowids(): number[] {
    return [...this.documents.keys()];
  }

  /** Ends a build: the triples added so far become the block (a counting sort by term); later rows go to tails. */
  seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    const terms = this.tokens.length;
    const offsets = new Uint32Array(terms + 1);
    for (let i = 0; i < this.pending; i++) offsets[this.pendingTerms[i]! + 1]!++;
    for (let t = 0; t < terms; t++) offsets[t + 1]! += offsets[t]!;
    const next = offsets.slice(0, terms);
    const ordinals = new Int32Array(this.pending);
    const counts = new Uint8Array(this.pending);
    for (let i = 0; i < this.pending; i++) {
      const at = next[this.pendingTerms[i]!]!++;
      ordinals[at] = this.pendingOrdinals[i]!;
      counts[at] = this.pendingCounts[i]!;
    }
    this.block = { offsets, ordinals: packOrdinals(offsets, ordinals), counts };
    this.pendingTerms = new Int32Array(0);
    this.pendingOrdinals = new Int32Array(0);
    this.pendingCounts = new Uint8Array(0);
    this.pending = 0;
    this.chunkOf = this.chunkOf.slice(0, this.rows);
    this.ownerOf = this.ownerOf.slice(0, this.rows);
    this.lengthOf = this.lengthOf.slice(0, this.rows);
    this.removed = this.removed.slice(0, this.rows);
  }

  /** Itself when sealed with nothing removed or appended, else a sealed copy of the rows not removed (renumbered). */
  compacted(): Bm25Postings {
    if (this.sealed && this.removedRows === 0 && !this.tails.some(Boolean)) return this;
    const copy = new Bm25Postings();
    const renumbered = new Int32Array(this.rows).fill(-1);
    const documents = [...this.documents].sort(([, a], [, b]) => a.base - b.base);
    for (const [docRowid, document] of documents) {
      const base = copy.rows;
      copy.reserveRows(base + document.count);
      const owner = copy.owner(this.ownerNames[this.ownerOf[document.base]!]!);
      copy.ownerRows[owner]! += document.count;
      for (let i = 0; i < document.count; i++) {
        const from = document.base + i;
        renumbered[from] = base + i;
        copy.chunkOf[base + i] = this.chunkOf[from]!;
        copy.ownerOf[base + i] = owner;
        copy.lengthOf[base + i] = this.lengthOf[from]!;
        const large = this.largeCounts.get(from);
        if (large) copy.largeCounts.set(base + i, large);
      }
      copy.rows += document.count;
      copy.documents.set(docRowid, { base, first: document.first, count: document.count });
    }
    this.sealAll();
    for (let term = 0; term < this.tokens.length; term++) {
      let kept = -1;
      this.eachRow(term, (ordinal, count) => {
        const to = renumbered[ordinal]!;
        if (to < 0) return;
        if (kept < 0) kept = copy.newTerm(this.tokens[term]!);
        copy.push(kept, to, count);
      });
    }
    copy.seal();
    copy.lastDocument = this.lastDocument;
    copy.signature = this.signature;
    return copy;
  }

  /** The sealed postings as arrays for a snapshot file (compacted first: no tail, nothing removed). */
  image(): PostingsImage {
    if (this.removedRows > 0 || this.tails.some(Boolean) || !this.sealed)
      throw new Error('Only sealed postings with nothing removed or appended have an image');
    const documents = new Float64Array(this.documents.size * 4);
    let at = 0;
    for (const [docRowid, document] of this.documents) {
      documents.set([docRowid, document.base, document.first, document.count], at);
      at += 4;
    }
    const largeCounts: [number, string, number][] = [];
    for (const [ordinal, counts] of this.largeCounts)
      for (const [token, count] of counts) largeCounts.push([ordinal, token, count]);
    return {
      header: {
        lastDocument: this.lastDocument,
        rows: this.rows,
        tokens: this.tokens,
        owners: this.ownerNames,
        largeCounts,
      },
      offsets: this.block.offsets,
      counts: this.block.counts,
      ...this.block.ordinals,
      chunkOf: this.chunkOf,
      ownerOf: this.ownerOf,
      lengthOf: this.lengthOf,
      documents,
    };
  }

  static fromImage(image: PostingsImage): Bm25Postings {
    const postings = new Bm25Postings();
    const { header } = image;
    header.tokens.forEach((token) => postings.newTerm(token));
    header.owners.forEach((ownerId) => postings.owner(ownerId));
    const { groupsOf, firsts, starts, gaps } = image;
    postings.block = {
      offsets: image.offsets,
      ordinals: { groupsOf, firsts, starts, gaps },
      counts: image.counts,
    };
    postings.sealed = true;
    postings.rows = header.rows;
    postings.chunkOf = image.chunkOf;
    postings.ownerOf = image.ownerOf;
    postings.lengthOf = image.lengthOf;
    postings.removed = new Uint8Array(header.rows);
    const { documents } = image;
    for (let i = 0; i < documents.length; i += 4) {
      const base = documents[i + 1]!;
      const count = documents[i + 3]!;
      postings.documents.set(documents[i]!, { base, first: documents[i + 2]!, count });
      postings.ownerRows[image.ownerOf[base]!]! += count;
    }
    for (const [ordinal, token, count] of header.largeCounts) {
      let large = postings.largeCounts.get(ordinal);
      if (!large) postings.largeCounts.set(ordinal, (large = new Map()));
      large.set(token, count);
    }
    postings.lastDocument = header.lastDocument;
    return postings;
  }

  /**
   * The best `candidates` chunk row ids for the tokens (one per query word, in the query's order; a token may come
   * twice, as two phrases of a MATCH do), by FTS5's row count and average row size (`totals`), among the owners'
   * rows and, with `tagged`, those chunks only.
   */
  rank(
    totals: Fts5Totals,
    tokens: readonly string[],
    ownerIds: readonly string[],
    tagged: readonly { chunk: number; docRowid: number }[] | null,
    candidates: number,
  ): number[] {
    if (this.rowCount === 0 || totals.rows === 0 || candidates <= 0) return [];
    this.sealAll();
    const allowedOwners = new Uint8Array(this.owners.size);
    let anyOwner = false;
    for (const ownerId of ownerIds) {
      const owner = this.owners.get(ownerId);
      if (owner === undefined) continue;
      allowedOwners[owner] = 1;
      anyOwner = true;
    }
    if (!anyOwner) return [];
    let keep: Uint8Array | null = null;
    if (tagged) {
      keep = new Uint8Array(this.rows);
      for (const { chunk, docRowid } of tagged) {
        const document = this.documents.get(docRowid);
        if (document && chunk >= document.first && chunk < document.first + document.count)
          keep[document.base + chunk - document.first] = 1;
      }
    }
    this.reserveScores();
    const { scores, touched, ownerOf, lengthOf, removed } = this;
    const averageLength = totals.tokens / totals.rows;
    let touchedCount = 0;
    // Every row counts when nothing is removed, every owner is asked for and no tag filters: no check per row.
    const filtered =
      this.removedRows > 0 ||
      keep !== null ||
      allowedOwners.some((allowed, owner) => !allowed && this.ownerRows[owner]! > 0);
    // fts5Bm25Function's expression, operation for operation.
    const part = (idf: number, count: number, ordinal: number) =>
      idf * ((count * (K1 + 1.0)) / (count + K1 * (1 - B + (B * lengthOf[ordinal]!) / averageLength)));
    /** Rows rows[0 … n), their counts times[at …]. */
    const score = (
      token: string,
      idf: number,
      rows: Int32Array,
      times: Uint8Array,
      at: number,
      n: number,
    ) => {
      for (let k = 0; k < n; k++) {
        const ordinal = rows[k]!;
        if (filtered && (removed[ordinal] || !allowedOwners[ownerOf[ordinal]!] || (keep && !keep[ordinal])))
          continue;
        let count = times[at + k]!;
        if (count === TF_CAP) count = this.largeCounts.get(ordinal)?.get(token) ?? count;
        if (scores[ordinal] === 0) touched[touchedCount++] = ordinal;
        scores[ordinal] += part(idf, count, ordinal);
      }
    };
    const { offsets, ordinals, counts } = this.block;
    const group = new Int32Array(GROUP);
    /** The term's rows in the block, a group at a time, then its tail's. */
    const scoreTerm = (token: string, idf: number, term: number) => {
      if (term + 1 < offsets.length)
        eachGroup(ordinals, term, offsets[term]!, group, (n, j) => score(token, idf, group, counts, j, n));
      const tail = this.tails[term];
      if (tail) score(token, idf, tail.ordinals, tail.counts, 0, tail.size);
    };
    const words = this.queryWords(tokens, totals.rows);
    // The rarest words first (the highest bound on what a word adds to a row); the frequent ones last, and only while
    // a row that holds none of the words scored so far could still reach the best `candidates` (MaxScore).
    const order = words.map((_, i) => i).sort((a, b) => words[b]!.bound - words[a]!.bound);
    let left = words.reduce((sum, word) => sum + word.bound, 0);
    let threshold = Number.NEGATIVE_INFINITY;
    // The last k-th largest sum: sums only grow, so the next one is not below it (see kthLargest).
    let floor = Number.NEGATIVE_INFINITY;
    let scored = 0;
    for (const [n, i] of order.entries()) {
      const { token, term, idf, bound } = words[i]!;
      scoreTerm(token, idf, term);
      left -= bound;
      scored = n + 1;
      const rest = order.slice(n + 1).reduce((sum, next) => sum + words[next]!.rows, 0);
      if (rest <= touchedCount) continue;
      threshold = floor = this.kthLargest(touchedCount, candidates, this.touched, floor);
      if (threshold - slack(threshold, left) > left) break;
      threshold = Number.NEGATIVE_INFINITY;
    }
    if (left <= 0) left = 0;
    // Rows summed in another order than the query's: each row that may still be among the best (its sum so far plus
    // what the words left could add reaches the threshold) keeps its sum and is narrowed by the words left, then the
    // rows left are scored again word by word in the query's order, the sums FTS5's bm25() makes; a row that holds
    // none of the words scored is below the threshold by the test above.
    if (touchedCount >= candidates && !Number.isFinite(threshold))
      threshold = floor = this.kthLargest(touchedCount, candidates, this.touched, floor);
    const kept = this.keptAbove(touched.subarray(0, touchedCount), threshold - slack(threshold, left) - left);
    const rows = this.narrowed(words, order.slice(scored), kept.sort(), part, candidates, floor);
    return this.summed(words, rows, part, candidates);
  }

  /** The rows whose sum is not below `floor`, compacted in place (in their order); the others' sums set back to 0. */
  private keptAbove(rows: Int32Array, floor: number): Int32Array {
    const { scores } = this;
    let kept = 0;
    for (let at = 0; at < rows.length; at++) {
      const ordinal = rows[at]!;
      if (scores[ordinal]! < floor) scores[ordinal] = 0;
      else rows[kept++] = ordinal;
    }
    return rows.subarray(0, kept);
  }

  /**
   * The rows that may still be among the best `candidates` once every word is counted. Each row comes with its sum of
   * the words MaxScore scored (in `scores`, at its ordinal); the words it left (`rest`, the frequent ones) are added
   * one by one, each over the rows still in, and after each a row whose sum plus what the words after it could add
   * falls short of the `candidates`-th best sum is set aside (MaxScore again, within the rows kept): "the" and "of"
   * are read for ~100 rows where they were read for ~5,000. These sums only set rows aside (the words in another
   * order than the query's); each row's is set back to 0 as it is set aside, or at the end. The rows stay ascending.
   */
  private narrowed(
    words: ReturnType<Bm25Postings['queryWords']>,
    rest: readonly number[],
    rows: Int32Array,
    part: (idf: number, count: number, ordinal: number) => number,
    candidates: number,
    /** A k-th largest sum of the rows before: the rows kept hold the best ones, whose sums only grow from there. */
    floor: number,
  ): Int32Array {
    const { scores } = this;
    let left = rest.reduce((sum, i) => sum + words[i]!.bound, 0);
    for (const i of rest) {
      if (rows.length <= 2 * candidates) break;
      const current = rows;
      this.eachPart(words[i]!, current, part, (at, value) => {
        scores[current[at]!] += value;
      });
      left = Math.max(0, left - words[i]!.bound);
      const threshold = (floor = this.kthLargest(rows.length, candidates, rows, floor));
      rows = this.keptAbove(rows, threshold - slack(threshold, left) - left);
    }
    for (let at = 0; at < rows.length; at++) scores[rows[at]!] = 0;
    return rows;
  }

  /**
   * The best `candidates` of the rows (ascending), each summed word by word in the query's order, the sum FTS5's
   * bm25() makes: a word's rows are walked once, in step with these (both ascending), skipping ahead by galloping.
   */
  private summed(
    words: ReturnType<Bm25Postings['queryWords']>,
    rows: Int32Array,
    part: (idf: number, count: number, ordinal: number) => number,
    candidates: number,
  ): number[] {
    // The scores are all 0 between ranks: their first entries hold the sums.
    const sums = this.scores.subarray(0, rows.length);
    for (const word of words)
      this.eachPart(word, rows, part, (i, value) => {
        sums[i] += value;
      });
    const top = new TopScores(candidates);
    for (let i = 0; i < rows.length; i++) {
      top.offer(this.chunkOf[rows[i]!]!, sums[i]!);
      sums[i] = 0;
    }
    return top.best();
  }

  /**
   * Calls `add(i, value)` with what the word adds to each of `rows` (ascending) that holds it, its part of FTS5's sum:
   * the block's postings walked in step with the rows (galloping), then the tail's.
   */
  private eachPart(
    { token, term, idf }: ReturnType<Bm25Postings['queryWords']>[number],
    rows: Int32Array,
    part: (idf: number, count: number, ordinal: number) => number,
    add: (i: number, value: number) => void,
  ): void {
    const { offsets, ordinals, counts } = this.block;
    const found = (count: number, i: number) => {
      const ordinal = rows[i]!;
      if (count === TF_CAP) count = this.largeCounts.get(ordinal)?.get(token) ?? count;
      add(i, part(idf, count, ordinal));
    };
    if (term + 1 < offsets.length)
      walkOrdinals(ordinals, term, offsets[term]!, rows, (j, i) => found(counts[j]!, i));
    const tail = this.tails[term];
    if (tail) walk(rows, tail.ordinals, tail.counts, 0, tail.size, found);
  }

  /** Room for a score per row (and the rows touched). */
  private reserveScores(): void {
    if (this.scores.length >= this.rows) return;
    this.scores = new Float64Array(this.chunkOf.length);
    this.touched = new Int32Array(this.chunkOf.length);
  }

  /**
   * The k-th largest sum of rows[0 … count), in a scratch array grown as needed; `floor`, when it is a k-th largest
   * sum of these rows seen before (sums only grow, rows are only added), leaves the rows below it out of the selection.
   */
  private kthLargest(count: number, k: number, rows: Int32Array, floor: number): number {
    if (this.selection.length < count) this.selection = new Float64Array(count);
    return kthLargest(this.scores, rows, count, k, this.selection, floor);
  }

  /** The query's tokens that have postings, in the query's order: IDF, rows holding it, and the most it adds to a row. */
  private queryWords(tokens: readonly string[], total: number) {
    const words: { token: string; term: number; idf: number; bound: number; rows: number }[] = [];
    for (const token of tokens) {
      const term = this.terms.get(token);
      if (term === undefined) continue;
      const idf = bm25Idf(total, this.liveRowsOf(term));
      const { offsets } = this.block;
      const rows =
        (term + 1 < offsets.length ? offsets[term + 1]! - offsets[term]! : 0) + (this.tails[term]?.size ?? 0);
      // count·(k1 + 1) / (count + k1·(…)) < k1 + 1.
      words.push({ token, term, idf, bound: idf * (K1 + 1), rows });
    }
    return words;
  }

  /** Calls `each` with every row holding the term and its count there: the block's, then the tail's. */
  private eachRow(term: number, each: (ordinal: number, count: number) => void): void {
    const { offsets, ordinals, counts } = this.block;
    if (term + 1 < offsets.length)
      eachOrdinal(ordinals, term, offsets[term]!, (ordinal, j) => each(ordinal, counts[j]!));
    const tail = this.tails[term];
    if (tail) for (let j = 0; j < tail.size; j++) each(tail.ordinals[j]!, tail.counts[j]!);
  }

  /** How many rows not removed hold the term (FTS5's hit count for its IDF). */
  private liveRowsOf(term: number): number {
    if (this.removedRows === 0) {
      const { offsets } = this.block;
      const inBlock = term + 1 < offsets.length ? offsets[term + 1]! - offsets[term]! : 0;
      return inBlock + (this.tails[term]?.size ?? 0);
    }
    if (this.liveEpoch[term] !== this.epoch) {
      let live = 0;
      this.eachRow(term, (ordinal) => {
        if (!this.removed[ordinal]) live++;
      });
      this.liveRows[term] = live;
      this.liveEpoch[term] = this.epoch;
    }
    return this.liveRows[term]!;
  }

  /** Rows added before a seal that never came (a build's postings are always sealed; this is a safeguard). */
  private sealAll(): void {
    if (!this.sealed) this.seal();
  }

  private push(term: number, ordinal: number, count: number): void {
    const stored = Math.min(count, TF_CAP);
    this.liveEpoch[term] = 0;
    if (!this.sealed) {
      if (this.pending === this.pendingTerms.length) {
        this.pendingTerms = grow(this.pendingTerms, this.pending + 1);
        this.pendingOrdinals = grow(this.pendingOrdinals, this.pending + 1);
        this.pendingCounts = grow(this.pendingCounts, this.pending + 1);
      }
      this.pendingTerms[this.pending] = term;
      this.pendingOrdinals[this.pending] = ordinal;
      this.pendingCounts[this.pending++] = stored;
      return;
    }
    let tail = this.tails[term];
    if (!tail) this.tails[term] = tail = { ordinals: new Int32Array(4), counts: new Uint8Array(4), size: 0 };
    if (tail.size === tail.ordinals.length) {
      tail.ordinals = grow(tail.ordinals, tail.size + 1);
      tail.counts = grow(tail.counts, tail.size + 1);
    }
    tail.ordinals[tail.size] = ordinal;
    tail.counts[tail.size++] = stored;
  }

  private newTerm(token: string): number {
    const term = this.tokens.length;
    this.terms.set(token, term);
    this.tokens.push(token);
    if (term >= this.rowCounts.length) {
      this.rowCounts = grow(this.rowCounts, term + 1);
      this.liveRows = grow(this.liveRows, term + 1);
      this.liveEpoch = grow(this.liveEpoch, term + 1);
    }
    return term;
  }

  private owner(ownerId: string): number {
    let owner = this.owners.get(ownerId);
    if (owner === undefined) {
      this.owners.set(ownerId, (owner = this.ownerNames.length));
      this.ownerNames.push(ownerId);
      this.ownerRows.push(0);
    }
    return owner;
  }

  private reserveRows(rows: number): void {
    if (rows <= this.chunkOf.length) return;
    this.chunkOf = grow(this.chunkOf, rows);
    this.ownerOf = grow(this.ownerOf, rows);
    this.lengthOf = grow(this.lengthOf, rows);
    this.removed = grow(this.removed, rows);
  }
}

/** FTS5's IDF of a word held by `rows` of `total` rows (fts5_aux.c, fts5Bm25GetData). */
/**
 * Room for rounding between a row's sum so far and its sum in the query's order (a few ulps apart): a row is set
 * aside only when it falls short by more than this.
 */
const slack = (threshold: number, left: number): number => 1e-9 * (Math.abs(threshold) + left + 1);

/**
 * Calls `found(count, i)` for each of `rows` (ascending) that `ordinals[from … to)` (ascending) holds: one pass
 * over both, skipping ahead in the postings by galloping (a few probes per row when they are far apart).
 */
function walk(
  rows: Int32Array,
  ordinals: Int32Array,
  counts: Uint8Array,
  from: number,
  to: number,
  found: (count: number, i: number) => void,
): void {
  let at = from;
  for (let i = 0; i < rows.length && at < to; i++) {
    const row = rows[i]!;
    if (ordinals[at]! < row) {
      // Gallop to a bound past the row, then search between the last two probes.
      let step = 1;
      let low = at;
      while (at + step < to && ordinals[at + step]! < row) {
        low = at + step;
        step *= 2;
      }
      let high = Math.min(at + step, to);
      while (low + 1 < high) {
        const middle = (low + high) >>> 1;
        if (ordinals[middle]! < row) low = middle;
        else high = middle;
      }
      at = high;
      if (at >= to) return;
    }
    if (ordinals[at] === row) found(counts[at]!, i);
  }
}

/**
 * The k-th largest of scores[rows[0 … count)] (−∞ when there are fewer), by quickselect in `scratch` over the values
 * not below `floor` (a value at most the k-th largest: the values below it cannot be it). At a million chunks the
 * selections after each word were a third of a BM25 leg; most of the rows they went over had fallen below the last.
 */
function kthLargest(
  scores: Float64Array,
  rows: Int32Array,
  count: number,
  k: number,
  scratch: Float64Array,
  floor = Number.NEGATIVE_INFINITY,
): number {
  if (count < k || k <= 0) return Number.NEGATIVE_INFINITY;
  const values = scratch;
  let n = 0;
  for (let i = 0; i < count; i++) {
    const value = scores[rows[i]!]!;
    if (value >= floor) values[n++] = value;
  }
  // Fewer than k at the floor would mean it was above the k-th largest: select over every value then.
  if (n < k) return kthLargest(scores, rows, count, k, scratch);
  let low = 0;
  let high = n - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else break;
  }
  return values[target]!;
}

export const bm25Idf = (total: number, rows: number): number => {
  const idf = Math.log((total - rows + 0.5) / (rows + 0.5));
  return idf <= 0 ? 1e-6 : idf;
};
