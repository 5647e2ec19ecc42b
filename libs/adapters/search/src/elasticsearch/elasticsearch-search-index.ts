// Production search index: Elasticsearch through the official client. Each logical index is one physical index
// `<prefix><name>` (prefix `knowledge_` by default, so the chunks keep apart from other data), each alias one ES
// alias `<prefix>alias-<name>` ('-' never occurs in a logical name, so an alias can never collide with an index).
// The index's dimensions live in its mapping's `_meta`, so the index and its registry entry are created in one call.
//
// One physical index holds two kinds of documents:
// - chunks (`kind: chunk`, id `chunk:<version>:<chunkId>`): keyword owner, document, chunk and tag ids, the version,
//   the text (standard tokenizer, lowercase and ASCII folding, so "Crème" matches "creme"; BM25) and a dense_vector
//   (cosine; plain float HNSW, not the quantized default, so similarities are the exact cosines the embedded
//   adapter computes; a zero vector is left out, as cosine cannot compare it);
// - one marker per document (`kind: document`, id `document:<documentId>`): the version being indexed and its
//   chunk count. The marker makes "an older version is a no-op" exact (even after a version without chunks), and its
//   sequence number serialises concurrent writers of one document.
//
// Elasticsearch has no multi-document transaction, so "a search sees one version of a document, never a mix" is
// built from an order of writes and a rule on reads:
// - upsert: claim the marker (compare-and-set on its sequence number), index the new chunks and refresh, then
//   delete-by-query the document's older chunks and refresh;
// - search: within one response, a document's chunks of a lower version than the highest one seen are dropped.
// A reader thus sees the old version, the new one, or both (and keeps the new). Periodic refresh is off
// (`refresh_interval: -1`) and every write refreshes explicitly (`refresh: true`): a timer refresh could otherwise
// expose half of a bulk request, and `wait_for` would wait for a refresh that never comes (or, with the 1 s
// default interval, add up to a second to each of an upsert's two writes). What remains: a write of one process
// can refresh while another's bulk is half done, exposing part of it; and setDocumentTags (update-by-query) is
// atomic in the same sense only.
//
// Both legs filter by owner (and tags) inside the query: BM25 in `bool.filter`, the vector leg in `knn.filter`,
// which Elasticsearch applies during the HNSW search (falling back to an exact scan when the filter is selective).
// The BM25 leg matches the same distinct words the embedded adapter does (its `queryTerms`). The legs are fused
// here with the shared reciprocal rank fusion (Elasticsearch's own RRF retriever needs a paid licence), so scores
// mean the same in both adapters.
// Over 300 lines on purpose: the whole search port over Elasticsearch (indexes, aliases, both legs, erasure)
// shares the mapping and the document kinds.
import { createHash } from 'node:crypto';
import { Client, type estypes } from '@elastic/elasticsearch';
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
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
import { queryTerms } from '../sqlite/fts5-query.js';

/** The client's options (its ESM entry point does not export their type). */
export type ElasticsearchClientOptions = NonNullable<ConstructorParameters<typeof Client>[0]>;

export interface ElasticsearchSearchIndexOptions {
  /** The cluster's URL (e.g. http://localhost:9200), or client options (auth, TLS; a mock connection in tests). */
  readonly client: string | ElasticsearchClientOptions;
  /** Prefix of the physical index and alias names (default `knowledge_`): lowercase letters, digits, underscores. */
  readonly prefix?: string;
  /**
   * Primary shards of a new index (default 1): BM25 statistics are per shard, so one shard ranks exactly as the
   * embedded index does; more spread a large index over nodes.
   */
  readonly shards?: number;
  /** Replicas of a new index (the cluster's default when absent). */
  readonly replicas?: number;
}

export const DEFAULT_INDEX_PREFIX = 'knowledge_';
/** Elasticsearch refuses more candidates per shard in one kNN search. */
const MAX_NUM_CANDIDATES = 10_000;
/** Compare-and-set attempts on a document's marker before giving up (only concurrent writers of it retry). */
const MARKER_ATTEMPTS = 20;
/** By-query writes are repeated while a concurrent write to the same chunks made them skip some. */
const BY_QUERY_ATTEMPTS = 5;
/** Elasticsearch's limit on a document id, in bytes. */
const MAX_ID_BYTES = 512;
const ANALYZER = 'knowledge_text';

const CHUNK_FIELDS = ['chunkId', 'documentId', 'version', 'text', 'citation'];

interface ChunkSource {
  readonly kind: 'chunk';
  readonly chunkId: string;
  readonly documentId: string;
  readonly ownerId: string;
  readonly tagIds: readonly string[];
  readonly version: number;
  readonly text: string;
  /** Absent for a zero vector: cosine similarity has no direction to compare (Elasticsearch refuses it). */
  readonly embedding?: number[];
  readonly citation: {
    readonly documentName: string;
    readonly sectionPath: readonly string[];
    readonly start: number;
    readonly end: number;
  };
}

interface MarkerSource {
  readonly kind: 'document';
  readonly documentId: string;
  readonly ownerId: string;
  readonly version: number;
  readonly chunks: number;
}

type RetrievedChunk = Pick<ChunkSource, 'chunkId' | 'documentId' | 'version' | 'text' | 'citation'>;

interface Marker {
  readonly version: number;
  readonly seqNo: number;
  readonly primaryTerm: number;
}

/** What an Elasticsearch error response says, read by shape: the client's ESM and CommonJS error classes differ. */
function responseOf(error: unknown): { status: number | undefined; type: string | undefined } {
  const meta = (error as { meta?: { statusCode?: number; body?: unknown } } | null)?.meta;
  const body = meta?.body as { error?: { type?: string } | string } | undefined;
  return {
    status: meta?.statusCode,
    type: typeof body?.error === 'object' ? body.error.type : undefined,
  };
}

const isIndexNotFound = (error: unknown): boolean => {
  const { status, type } = responseOf(error);
  return status === 404 && type === 'index_not_found_exception';
};

const chunkFilter = (
  ownerIds: readonly string[],
  tagIds: readonly string[] | null,
): estypes.QueryDslQueryContainer[] => [
  { term: { kind: 'chunk' } },
  { terms: { ownerId: [...ownerIds] } },
  ...(tagIds ? [{ terms: { tagIds: [...tagIds] } }] : []),
];

const isZero = (vector: readonly number[] | Float32Array): boolean => {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false;
  return true;
};

/** A chunk's document id: readable, or a digest when the chunk id would make it longer than Elasticsearch allows. */
export function chunkDocumentId(version: number, chunkId: string): string {
  const id = `chunk:${version}:${chunkId}`;
  if (Buffer.byteLength(id, 'utf8') <= MAX_ID_BYTES) return id;
  return `chunk:${version}:sha256:${createHash('sha256').update(chunkId, 'utf8').digest('base64url')}`;
}

const markerId = (documentId: string): string => `document:${documentId}`;

export class ElasticsearchSearchIndex implements SearchIndex {
  private readonly client: Client;
  private readonly prefix: string;
  private readonly shards: number;
  private readonly replicas: number | undefined;
  /**
   * Dimensions per index, read once from its mapping. An index dropped and created again with other dimensions by
   * another process is noticed when Elasticsearch refuses the vectors (the entry is then forgotten).
   */
  private readonly dimensionsCache = new Map<string, number>();
  private closed = false;

  constructor(options: ElasticsearchSearchIndexOptions) {
    this.prefix = options.prefix ?? DEFAULT_INDEX_PREFIX;
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(this.prefix)) {
      throw new ValidationError(
        'invalid_search_index_prefix',
        `${JSON.stringify(this.prefix)} is not an index prefix (lowercase letters, digits, underscores)`,
      );
    }
    this.shards = options.shards ?? 1;
    this.replicas = options.replicas;
    this.client = new Client(typeof options.client === 'string' ? { node: options.client } : options.client);
  }

  async ensureIndex(name: string, options: { readonly dimensions: number }): Promise<void> {
    assertIndexName(name);
    assertDimensions(options.dimensions);
    const dimensions = options.dimensions;
    try {
      await this.client.indices.create({
        index: this.physical(name),
        settings: {
          number_of_shards: this.shards,
          ...(this.replicas === undefined ? {} : { number_of_replicas: this.replicas }),
          refresh_interval: '-1',
          analysis: {
            analyzer: {
              [ANALYZER]: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] },
            },
          },
        },
        mappings: {
          dynamic: 'strict',
          _meta: { dimensions },
          properties: {
            kind: { type: 'keyword' },
            chunkId: { type: 'keyword' },
            documentId: { type: 'keyword' },
            ownerId: { type: 'keyword' },
            tagIds: { type: 'keyword' },
            version: { type: 'long' },
            chunks: { type: 'integer' },
            text: { type: 'text', analyzer: ANALYZER },
            embedding: {
              type: 'dense_vector',
              dims: dimensions,
              index: true,
              similarity: 'cosine',
              index_options: { type: 'hnsw' },
            },
            citation: { type: 'object', enabled: false },
          },
        },
      });
      this.dimensionsCache.set(name, dimensions);
    } catch (error) {
      if (responseOf(error).type !== 'resource_already_exists_exception') throw error;
      const existing = await this.dimensions(name, { fresh: true });
      if (existing !== dimensions) {
        throw new ConflictError(
          'search_index_dimensions_conflict',
          `Search index '${name}' has ${existing} dimensions, not ${dimensions}`,
        );
      }
    }
  }

  async upsertDocument(
    index: string,
    documentId: string,
    version: number,
    chunks: readonly IndexedChunk[],
  ): Promise<void> {
    assertIndexName(index);
    const dimensions = await this.dimensions(index);
    assertDocumentChunks(documentId, version, chunks, dimensions);
    const physical = this.physical(index);
    if (!(await this.claim(index, documentId, version, chunks))) return;

    const ids = chunks.map((chunk) => chunkDocumentId(version, chunk.chunkId));
    if (chunks.length > 0) {
      const operations = chunks.flatMap((chunk, i) => [
        { index: { _index: physical, _id: ids[i]! } },
        {
          kind: 'chunk',
          chunkId: chunk.chunkId,
          documentId,
          ownerId: chunk.ownerId,
          tagIds: [...new Set(chunk.tagIds)],
          version,
          text: chunk.text,
          ...(isZero(chunk.embedding) ? {} : { embedding: Array.from(chunk.embedding) }),
          citation: {
            documentName: chunk.documentName,
            sectionPath: [...chunk.sectionPath],
            start: chunk.start,
            end: chunk.end,
          },
        } satisfies ChunkSource,
      ]);
      const response = await this.call(index, () => this.client.bulk({ operations, refresh: true }));
      if (response.errors) {
        this.dimensionsCache.delete(index);
        const failed = response.items.map((item) => item.index).find((item) => item?.error);
        throw new Error(
          `Elasticsearch refused chunk '${failed?._id ?? '?'}' of document '${documentId}': ` +
            `${failed?.error?.type ?? 'error'}: ${failed?.error?.reason ?? ''}`,
        );
      }
    }

    // The older chunks go only now that the new ones are searchable. The marker is read again: when a newer
    // version was claimed meanwhile, this writer's chunks are older ones too.
    const latest = (await this.marker(index, documentId))?.version;
    let sweep: estypes.QueryDslQueryContainer;
    if (latest === version) {
      sweep = {
        bool: {
          should: [
            { range: { version: { lt: version } } },
            {
              bool: {
                filter: [{ term: { version } }],
                ...(ids.length > 0 ? { must_not: [{ ids: { values: ids } }] } : {}),
              },
            },
          ],
          minimum_should_match: 1,
        },
      };
    } else if (latest !== undefined && latest > version) {
      sweep = { range: { version: { lt: latest } } };
    } else {
      // Deleted meanwhile (and perhaps indexed again at a lower version): only what this writer added goes.
      if (ids.length === 0) return;
      sweep = { ids: { values: ids } };
    }
    await this.byQuery(index, 'delete', {
      bool: { filter: [{ term: { kind: 'chunk' } }, { term: { documentId } }, sweep] },
    });
  }

  async setDocumentTags(index: string, documentId: string, tagIds: readonly string[]): Promise<void> {
    assertIndexName(index);
    assertDocumentId(documentId);
    assertTagIds(tagIds);
    await this.dimensions(index);
    await this.byQuery(
      index,
      'update',
      { bool: { filter: [{ term: { kind: 'chunk' } }, { term: { documentId } }] } },
      {
        source: 'ctx._source.tagIds = params.tagIds',
        lang: 'painless',
        params: { tagIds: [...new Set(tagIds)] },
      },
    );
  }

  async deleteDocument(index: string, documentId: string): Promise<void> {
    assertIndexName(index);
    assertDocumentId(documentId);
    await this.dimensions(index);
    // The marker goes with the chunks: a deleted document may come back at any version.
    await this.byQuery(index, 'delete', { term: { documentId } });
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
    const [dimensions, embedding] = await Promise.all([this.dimensions(index), query.embedding]);
    if (mode !== 'bm25') assertQueryEmbedding(embedding, dimensions);
    if (limit === 0 || ownerIds.length === 0) return [];

    const candidates = candidatesPerLeg(limit);
    const legs: Promise<estypes.SearchHit<RetrievedChunk>[]>[] = [];
    if (mode !== 'vector') legs.push(this.bm25Leg(index, query.text, ownerIds, tagIds, candidates));
    if (mode !== 'bm25') legs.push(this.vectorLeg(index, embedding, ownerIds, tagIds, candidates));
    const lists = await Promise.all(legs);

    // One version per document in a response: while an upsert is under way both may be searchable.
    const newest = new Map<string, number>();
    const byId = new Map<string, RetrievedChunk>();
    for (const hit of lists.flat()) {
      const chunk = hit._source!;
      byId.set(hit._id!, chunk);
      newest.set(chunk.documentId, Math.max(newest.get(chunk.documentId) ?? -Infinity, chunk.version));
    }
    const ranked = lists.map((hits) =>
      hits
        .filter((hit) => hit._source!.version === newest.get(hit._source!.documentId))
        .map((hit) => hit._id!),
    );
    const fused = reciprocalRankFusion(ranked).slice(0, limit);
    const bm25At = mode === 'vector' ? -1 : 0;
    const vectorAt = mode === 'vector' ? 0 : mode === 'bm25' ? -1 : 1;
    return fused.map(({ id, score, ranks }) => {
      const chunk = byId.get(id)!;
      return {
        chunkId: chunk.chunkId,
        documentId: chunk.documentId,
        documentName: chunk.citation.documentName,
        sectionPath: [...chunk.citation.sectionPath],
        start: chunk.citation.start,
        end: chunk.citation.end,
        text: chunk.text,
        score,
        bm25Rank: bm25At < 0 ? null : ranks[bm25At]!,
        vectorRank: vectorAt < 0 ? null : ranks[vectorAt]!,
      };
    });
  }

  async setLive(alias: string, index: string): Promise<void> {
    assertIndexName(alias, 'alias');
    assertIndexName(index);
    await this.dimensions(index);
    // One request, so the alias never points at no index or at two.
    await this.call(index, () =>
      this.client.indices.updateAliases({
        actions: [
          { remove: { index: `${this.prefix}*`, alias: this.aliasName(alias), must_exist: false } },
          { add: { index: this.physical(index), alias: this.aliasName(alias) } },
        ],
      }),
    );
  }

  async liveIndex(alias: string): Promise<string | null> {
    assertIndexName(alias, 'alias');
    let found: estypes.IndicesGetAliasResponse;
    try {
      found = await this.client.indices.getAlias({ name: this.aliasName(alias) });
    } catch (error) {
      if (responseOf(error).status === 404) return null;
      throw error;
    }
    const indexes = Object.keys(found)
      .filter((physical) => physical.startsWith(this.prefix))
      .map((physical) => physical.slice(this.prefix.length))
      .sort();
    return indexes[0] ?? null;
  }

  async dropIndex(name: string): Promise<void> {
    assertIndexName(name);
    const physical = this.physical(name);
    let aliases: string[];
    try {
      const found = await this.client.indices.getAlias({ index: physical });
      aliases = Object.keys(found[physical]?.aliases ?? {});
    } catch (error) {
      if (isIndexNotFound(error)) {
        this.dimensionsCache.delete(name);
        return;
      }
      throw error;
    }
    if (aliases.length > 0) {
      const aliasPrefix = this.aliasName('');
      const shown = aliases.map((alias) =>
        alias.startsWith(aliasPrefix) ? alias.slice(aliasPrefix.length) : alias,
      );
      throw new ConflictError(
        'search_index_live',
        `Search index '${name}' is live for '${shown.join("', '")}': switch the alias before dropping it`,
      );
    }
    this.dimensionsCache.delete(name);
    try {
      await this.client.indices.delete({ index: physical });
    } catch (error) {
      if (!isIndexNotFound(error)) throw error;
    }
  }

  async stats(index: string): Promise<SearchIndexStats> {
    assertIndexName(index);
    const response = await this.call(index, () =>
      this.client.search({
        index: this.physical(index),
        size: 0,
        track_total_hits: false,
        aggs: {
          chunks: { filter: { term: { kind: 'chunk' } } },
          documents: {
            filter: { bool: { filter: [{ term: { kind: 'document' } }, { range: { chunks: { gt: 0 } } }] } },
          },
        },
      }),
    );
    const count = (name: string): number =>
      (response.aggregations?.[name] as estypes.AggregationsFilterAggregate | undefined)?.doc_count ?? 0;
    return { chunks: count('chunks'), documents: count('documents') };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }

  private bm25Leg(
    index: string,
    text: string,
    ownerIds: readonly string[],
    tagIds: readonly string[] | null,
    candidates: number,
  ): Promise<estypes.SearchHit<RetrievedChunk>[]> {
    // The same distinct words as the embedded index matches (at most 32): operators and quotes are separators,
    // and a 10,000-word query stays one small bool query.
    const terms = queryTerms(text);
    if (terms.length === 0) return Promise.resolve([]);
    return this.hits(index, {
      size: candidates,
      query: {
        bool: {
          must: [{ match: { text: { query: terms.join(' ') } } }],
          filter: chunkFilter(ownerIds, tagIds),
        },
      },
    });
  }

  private vectorLeg(
    index: string,
    embedding: readonly number[] | Float32Array,
    ownerIds: readonly string[],
    tagIds: readonly string[] | null,
    candidates: number,
  ): Promise<estypes.SearchHit<RetrievedChunk>[]> {
    if (embedding.length === 0 || isZero(embedding)) return Promise.resolve([]);
    return this.hits(index, {
      size: candidates,
      knn: {
        field: 'embedding',
        query_vector: Array.from(embedding),
        k: candidates,
        num_candidates: Math.min(MAX_NUM_CANDIDATES, Math.max(candidates * 2, 100)),
        filter: chunkFilter(ownerIds, tagIds),
      },
    });
  }

  private async hits(
    index: string,
    request: Pick<estypes.SearchRequest, 'size' | 'query' | 'knn'>,
  ): Promise<estypes.SearchHit<RetrievedChunk>[]> {
    const response = await this.call(index, () =>
      this.client.search<RetrievedChunk>({
        index: this.physical(index),
        ...request,
        track_total_hits: false,
        _source: CHUNK_FIELDS,
      }),
    );
    return response.hits.hits.filter((hit) => hit._id !== undefined && hit._source !== undefined);
  }

  /**
   * Makes this version the document's current one by a compare-and-set on its marker; false when a newer version
   * holds it already (nothing is to be written). Concurrent writers of one document are serialised here.
   */
  private async claim(
    index: string,
    documentId: string,
    version: number,
    chunks: readonly IndexedChunk[],
  ): Promise<boolean> {
    const document: MarkerSource = {
      kind: 'document',
      documentId,
      ownerId: chunks[0]?.ownerId ?? '',
      version,
      chunks: chunks.length,
    };
    for (let attempt = 0; attempt < MARKER_ATTEMPTS; attempt++) {
      const current = await this.marker(index, documentId);
      if (current && current.version > version) return false;
      try {
        await this.call(index, () =>
          this.client.index({
            index: this.physical(index),
            id: markerId(documentId),
            document,
            ...(current
              ? { if_seq_no: current.seqNo, if_primary_term: current.primaryTerm }
              : { op_type: 'create' as const }),
          }),
        );
        return true;
      } catch (error) {
        if (responseOf(error).status !== 409) throw error;
      }
    }
    throw new ConflictError(
      'search_document_contended',
      `Document '${documentId}' kept changing while version ${version} was being indexed`,
    );
  }

  /** The document's marker, read in real time (no refresh needed); undefined when it has none. */
  private async marker(index: string, documentId: string): Promise<Marker | undefined> {
    try {
      const found = await this.client.get<MarkerSource>({
        index: this.physical(index),
        id: markerId(documentId),
      });
      if (!found.found || !found._source) return undefined;
      return { version: found._source.version, seqNo: found._seq_no!, primaryTerm: found._primary_term! };
    } catch (error) {
      if (isIndexNotFound(error)) {
        this.dimensionsCache.delete(index);
        throw new NotFoundError('Search index', index);
      }
      if (responseOf(error).status === 404) return undefined;
      throw error;
    }
  }

  /**
   * Delete- or update-by-query, refreshed. Documents a concurrent write changed under it are skipped by
   * Elasticsearch ("version conflicts"), so it runs again until none is.
   */
  private async byQuery(
    index: string,
    action: 'delete' | 'update',
    query: estypes.QueryDslQueryContainer,
    script?: estypes.Script,
  ): Promise<void> {
    for (let attempt = 0; attempt < BY_QUERY_ATTEMPTS; attempt++) {
      const request = { index: this.physical(index), query, refresh: true, conflicts: 'proceed' as const };
      const response = await this.call(index, () =>
        action === 'delete'
          ? this.client.deleteByQuery(request)
          : this.client.updateByQuery({ ...request, script: script! }),
      );
      const failure = response.failures?.[0];
      if (failure) {
        throw new Error(
          `Elasticsearch ${action}-by-query failed on '${failure.id}': ${failure.cause.reason ?? ''}`,
        );
      }
      if (!response.version_conflicts) return;
    }
    throw new ConflictError(
      'search_document_contended',
      `Chunks of index '${index}' kept changing during an ${action}-by-query`,
    );
  }

  /** The index's dimensions from its mapping's `_meta` (cached); a NotFoundError when it does not exist. */
  private async dimensions(index: string, options: { fresh?: boolean } = {}): Promise<number> {
    const cached = options.fresh ? undefined : this.dimensionsCache.get(index);
    if (cached !== undefined) return cached;
    const physical = this.physical(index);
    const mapping = await this.call(index, () => this.client.indices.getMapping({ index: physical }));
    const dimensions = mapping[physical]?.mappings._meta?.['dimensions'];
    if (typeof dimensions !== 'number') {
      throw new ConflictError(
        'search_index_foreign',
        `Elasticsearch index '${physical}' exists but was not created as a search index`,
      );
    }
    this.dimensionsCache.set(index, dimensions);
    return dimensions;
  }

  /** Runs a request on the index; its absence becomes a NotFoundError (and forgets what was cached of it). */
  private async call<T>(index: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (isIndexNotFound(error)) {
        this.dimensionsCache.delete(index);
        throw new NotFoundError('Search index', index);
      }
      throw error;
    }
  }

  private physical(index: string): string {
    return `${this.prefix}${index}`;
  }

  private aliasName(alias: string): string {
    return `${this.prefix}alias-${alias}`;
  }
}
