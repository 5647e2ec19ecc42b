// The Knowledge search index port: the chunks of Ready documents, searchable by BM25 and by vector similarity,
// fused by reciprocal rank fusion. The caller indexes only Ready documents, so the index knows no status. Access
// is the caller's `ownerIds` (the Agent's own id, its Space's id, 'global'); an adapter applies that filter inside
// each leg of the query, never after a global top-k, so one owner's chunks are never returned to a query for
// another and can never crowd its results out. Indexes are versioned by name (`chunks_v1`, `chunks_v2`) and reached
// through an alias, so a rebuild fills a new index beside the live one and `setLive` switches in one step.
import { ValidationError } from '#kernel/thread-kit';

export { reciprocalRankFusion, RRF_K, type FusedRanking } from './reciprocal-rank-fusion.js';

export interface IndexedChunk {
  readonly chunkId: string;
  readonly documentId: string;
  readonly version: number;
  /** The document's owner: an Agent id, a Space id, or 'global'. */
  readonly ownerId: string;
  readonly tagIds: readonly string[];
  /** Headings above the chunk, outermost first. */
  readonly sectionPath: readonly string[];
  /** The [start, end) range of the document's extracted text the chunk cites. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly embedding: Float32Array | readonly number[];
  readonly documentName: string;
}

export type SearchMode = 'hybrid' | 'bm25' | 'vector';

export interface SearchQuery {
  /** Free text from a user: any string is accepted; operators and quotes in it are plain words. */
  readonly text: string;
  /**
   * The query's embedding; an empty array skips the vector leg. A promise of it lets the index start what needs only
   * the text (a BM25 leg in a thread of its own) while the embedding is computed.
   */
  readonly embedding: readonly number[] | Float32Array | Promise<readonly number[] | Float32Array>;
  /** Owners whose chunks may be returned; an empty list returns nothing. */
  readonly ownerIds: readonly string[];
  /** When given and not empty, only chunks carrying at least one of these tags. */
  readonly tagIds?: readonly string[];
  /** How many hits at most (clamped to 0..MAX_SEARCH_LIMIT). */
  readonly limit: number;
  /** 'hybrid' when absent. */
  readonly mode?: SearchMode;
}

export interface SearchHit {
  readonly chunkId: string;
  readonly documentId: string;
  readonly documentName: string;
  readonly sectionPath: string[];
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** Reciprocal rank fusion over the legs that ran (one leg in 'bm25' and 'vector' modes); higher is better. */
  readonly score: number;
  /** 1-based rank in the BM25 leg, null when the chunk was not in it. */
  readonly bm25Rank: number | null;
  /** 1-based rank in the vector leg, null when the chunk was not in it. */
  readonly vectorRank: number | null;
}

export interface SearchIndexStats {
  readonly chunks: number;
  /** Documents with at least one chunk in the index. */
  readonly documents: number;
}

/** One owner's approximate-nearest-neighbour graph in the embedded adapter: being built (with progress) or serving. */
export interface AnnGraphProgress {
  readonly index: string;
  readonly ownerId: string;
  readonly state: 'building' | 'ready';
  readonly vectors: number;
  readonly total: number;
  /** How long the worker's build took, when this process built it. */
  readonly buildMs?: number;
}

export interface SearchIndex {
  /** Creates the index if absent; a ConflictError when it exists with other dimensions. */
  ensureIndex(name: string, options: { readonly dimensions: number }): Promise<void>;
  /**
   * Replaces every chunk of the document with these, atomically: a search sees the old version's chunks or the
   * new one's, never a mix. An upsert of a version older than the indexed one changes nothing (a late writer never
   * undoes a newer version); the same version again replaces it (tags may have changed). No chunks removes the
   * document's chunks. Every chunk must belong to the document, share one owner and have the index's dimensions.
   */
  upsertDocument(
    index: string,
    documentId: string,
    version: number,
    chunks: readonly IndexedChunk[],
  ): Promise<void>;
  /**
   * Replaces the tag set of every chunk of the document (whatever version is indexed) with these tags, in one write:
   * a search sees the old tags on all of its chunks or the new ones on all of them, never a mix. Nothing happens
   * when the document has no chunks. A later upsert sets the tags its own chunks carry.
   */
  setDocumentTags(index: string, documentId: string, tagIds: readonly string[]): Promise<void>;
  /**
   * Removes every chunk of the document; nothing happens when it is absent. The embedded adapter erases the
   * document's words from its files within DEFAULT_ERASURE_DELAY_MS of the call (sqlite-search-index.ts).
   */
  deleteDocument(index: string, documentId: string): Promise<void>;
  /** Best first. Never throws on the query text; a NotFoundError for an unknown index. */
  search(index: string, query: SearchQuery): Promise<SearchHit[]>;
  /** Points the alias at the index in one step; the index must exist. */
  setLive(alias: string, index: string): Promise<void>;
  liveIndex(alias: string): Promise<string | null>;
  /** Drops the index and its chunks; nothing happens when it is absent; a ConflictError while an alias points at it. */
  dropIndex(name: string): Promise<void>;
  stats(index: string): Promise<SearchIndexStats>;
  /** The embedded adapter's per-owner HNSW graphs; absent where the engine keeps its own (Elasticsearch). */
  annProgress?(): AnnGraphProgress[];
  close(): Promise<void>;
}

export const SEARCH_INDEX = Symbol('SEARCH_INDEX');

/** Each leg retrieves this many candidates for fusion: enough that fusion can promote a chunk both legs agree on. */
export const candidatesPerLeg = (limit: number): number => Math.max(limit * 4, 50);

export const MAX_SEARCH_LIMIT = 1000;
export const MAX_DIMENSIONS = 4096;

const INDEX_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** Index and alias names: lowercase letters, digits and underscores, starting with a letter (valid in every engine). */
export function assertIndexName(name: unknown, what: 'index' | 'alias' = 'index'): asserts name is string {
  if (typeof name !== 'string' || !INDEX_NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : typeof name;
    throw new ValidationError(
      `invalid_search_${what}_name`,
      `${shown} is not a search ${what} name (lowercase letters, digits, underscores; a letter first; at most 63)`,
    );
  }
}

export function assertDimensions(dimensions: unknown): asserts dimensions is number {
  if (
    !Number.isInteger(dimensions) ||
    (dimensions as number) < 1 ||
    (dimensions as number) > MAX_DIMENSIONS
  ) {
    throw new ValidationError(
      'invalid_dimensions',
      `An index's dimensions must be an integer from 1 to ${MAX_DIMENSIONS}`,
    );
  }
}

/** The limit a search honours: an integer from 0 to MAX_SEARCH_LIMIT (anything else counts as 0). */
export const clampLimit = (limit: number): number =>
  Number.isFinite(limit) ? Math.min(Math.max(Math.floor(limit), 0), MAX_SEARCH_LIMIT) : 0;

export function assertDocumentId(documentId: unknown): asserts documentId is string {
  if (typeof documentId !== 'string' || documentId.length === 0) {
    throw new ValidationError('invalid_document_id', 'A document id must be a non-empty string');
  }
}

/** Tag ids, of a chunk or of a whole document: a list of non-empty strings (repeats count once). */
export function assertTagIds(tagIds: unknown): asserts tagIds is readonly string[] {
  if (!Array.isArray(tagIds)) {
    throw new ValidationError('invalid_tag_ids', 'Tag ids must be a list of strings');
  }
  for (const tagId of tagIds) {
    if (typeof tagId !== 'string' || tagId.length === 0) {
      throw new ValidationError('invalid_tag_id', 'A tag id must be a non-empty string');
    }
  }
}

/**
 * Checks a document's chunks before any write: each belongs to the document, the document has one owner, chunk
 * ids are distinct, tag ids are non-empty strings, embeddings have the index's dimensions and finite values.
 */
export function assertDocumentChunks(
  documentId: string,
  version: number,
  chunks: readonly IndexedChunk[],
  dimensions: number,
): void {
  assertDocumentId(documentId);
  if (!Number.isSafeInteger(version)) {
    throw new ValidationError('invalid_document_version', `Version ${String(version)} is not an integer`);
  }
  const ids = new Set<string>();
  for (const chunk of chunks) {
    if (chunk.documentId !== documentId) {
      throw new ValidationError(
        'chunk_of_another_document',
        `Chunk '${chunk.chunkId}' belongs to document '${chunk.documentId}', not '${documentId}'`,
      );
    }
    if (chunk.ownerId !== chunks[0]!.ownerId) {
      throw new ValidationError(
        'mixed_owners',
        `The chunks of document '${documentId}' have different owners`,
      );
    }
    if (ids.has(chunk.chunkId)) {
      throw new ValidationError('duplicate_chunk_id', `Chunk id '${chunk.chunkId}' appears twice`);
    }
    ids.add(chunk.chunkId);
    assertTagIds(chunk.tagIds);
    if (
      !Number.isSafeInteger(chunk.start) ||
      !Number.isSafeInteger(chunk.end) ||
      chunk.start < 0 ||
      chunk.end < chunk.start
    ) {
      throw new ValidationError(
        'invalid_chunk_range',
        `Chunk '${chunk.chunkId}' cites [${chunk.start}, ${chunk.end}), not a range of text offsets`,
      );
    }
    if (chunk.embedding.length !== dimensions) {
      throw new ValidationError(
        'embedding_dimensions_mismatch',
        `Chunk '${chunk.chunkId}' has ${chunk.embedding.length} dimensions, the index ${dimensions}`,
      );
    }
    for (let i = 0; i < chunk.embedding.length; i++) {
      if (!Number.isFinite(chunk.embedding[i])) {
        throw new ValidationError(
          'invalid_embedding',
          `Chunk '${chunk.chunkId}' has a non-finite embedding value`,
        );
      }
    }
  }
}

/** A query embedding is empty (no vector leg) or has the index's dimensions and finite values. */
export function assertQueryEmbedding(embedding: readonly number[] | Float32Array, dimensions: number): void {
  if (embedding.length === 0) return;
  if (embedding.length !== dimensions) {
    throw new ValidationError(
      'embedding_dimensions_mismatch',
      `The query embedding has ${embedding.length} dimensions, the index ${dimensions}`,
    );
  }
  for (let i = 0; i < embedding.length; i++) {
    if (!Number.isFinite(embedding[i])) {
      throw new ValidationError('invalid_embedding', 'The query embedding has a non-finite value');
    }
  }
}
