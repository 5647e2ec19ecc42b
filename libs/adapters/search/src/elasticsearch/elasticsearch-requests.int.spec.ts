// The Elasticsearch adapter without a server: `@elastic/elasticsearch-mock` stands in for the HTTP layer of the
// real client, so these specs check the requests the adapter sends (mapping, both legs' owner and tag filters,
// the atomic alias switch, the order of an upsert's writes) and what it makes of the answers (version filtering,
// fusion). Whether Elasticsearch behaves as these requests assume is the contract's job, in
// elasticsearch-search-index.int.spec.ts, against a real server.
import { createRequire } from 'node:module';
import { candidatesPerLeg, RRF_K, type IndexedChunk, type SearchMode } from '../search-index.port.js';
import { SqliteSearchIndex } from '../sqlite/sqlite-search-index.js';
import {
  ElasticsearchSearchIndex,
  chunkDocumentId,
  type ElasticsearchClientOptions,
} from './elasticsearch-search-index.js';

// Both CommonJS, loaded as such: the mock's typings declare a default export its module.exports does not have, and
// it answers with the error classes of the client's CommonJS build (the one it loads itself).
const require = createRequire(import.meta.url);
const Mock =
  require('@elastic/elasticsearch-mock') as (typeof import('@elastic/elasticsearch-mock'))['default'];
const { errors } = require('@elastic/elasticsearch') as {
  errors: { ResponseError: new (meta: { body: unknown; statusCode: number }) => Error };
};

interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly querystring: Record<string, string>;
  // The JSON the adapter sent: shapes are checked by walking it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

type Answer = (request: SentRequest) => unknown;

const errorOf = (statusCode: number, type: string) =>
  new errors.ResponseError({ body: { error: { type, reason: type }, status: statusCode }, statusCode });
const indexNotFound = () => errorOf(404, 'index_not_found_exception');

/** Records every request; answers from routes (method + exact path), each a queue whose last answer repeats. */
class FakeCluster {
  readonly requests: SentRequest[] = [];
  private readonly routes = new Map<string, Answer[]>();
  private readonly mock = new Mock();

  constructor() {
    this.mock.add({ method: ['GET', 'POST', 'PUT', 'DELETE', 'HEAD'], path: '*' }, (params: unknown) => {
      const request = params as unknown as SentRequest;
      this.requests.push(request);
      const queue = this.routes.get(`${request.method} ${request.path}`);
      if (!queue) return errorOf(500, `no route for ${request.method} ${request.path}`);
      const answer = queue.length > 1 ? queue.shift()! : queue[0]!;
      return answer(request) as Record<string, unknown>;
    });
  }

  on(method: string, path: string, ...answers: Answer[]): this {
    this.routes.set(`${method} ${path}`, answers);
    return this;
  }

  /** An existing index of these dimensions (its mapping's `_meta`). */
  withIndex(physical: string, dimensions: number): this {
    return this.on('GET', `/${physical}/_mapping`, () => ({
      [physical]: { mappings: { _meta: { dimensions } } },
    }));
  }

  adapter(prefix?: string): ElasticsearchSearchIndex {
    // The mock's connection has no close(), which the client calls when the adapter closes.
    class Connection extends this.mock.getConnection() {
      override async close(): Promise<void> {}
    }
    return new ElasticsearchSearchIndex({
      // The mock is typed against the client's CommonJS declarations, the adapter against its ESM ones.
      client: {
        node: 'http://localhost:9200',
        Connection: Connection as unknown as ElasticsearchClientOptions['Connection'],
      },
      ...(prefix ? { prefix } : {}),
    });
  }

  sent(method: string, pathEnd: string): SentRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.endsWith(pathEnd));
  }

  trail(): string[] {
    return this.requests.map((r) => `${r.method} ${r.path}`);
  }
}

const DIMENSIONS = 4;
const INDEX = 'chunks_v1';
const PHYSICAL = 'knowledge_chunks_v1';

const chunk = (
  documentId: string,
  version: number,
  n: number,
  text: string,
  embedding: number[],
  tagIds: string[] = [],
): IndexedChunk => ({
  chunkId: `${documentId}-v${version}-${n}`,
  documentId,
  version,
  ownerId: 'agt_1',
  tagIds,
  sectionPath: ['Guide', `Part ${n}`],
  start: n * 100,
  end: n * 100 + text.length,
  text,
  embedding,
  documentName: `${documentId}.md`,
});

/** A search hit as Elasticsearch returns it for a stored chunk. */
const hitOf = (c: IndexedChunk) => ({
  _index: PHYSICAL,
  _id: chunkDocumentId(c.version, c.chunkId),
  _score: 1,
  _source: {
    chunkId: c.chunkId,
    documentId: c.documentId,
    version: c.version,
    text: c.text,
    citation: { documentName: c.documentName, sectionPath: c.sectionPath, start: c.start, end: c.end },
  },
});
const hitsOf = (chunks: readonly IndexedChunk[]) => ({
  took: 1,
  timed_out: false,
  hits: { hits: chunks.map(hitOf) },
});

const isBm25 = (r: SentRequest) => r.body?.query !== undefined;
const isKnn = (r: SentRequest) => r.body?.knn !== undefined;
/** Every filter clause of a leg: the BM25 leg's `bool.filter`, the vector leg's `knn.filter`. */
const filtersOf = (r: SentRequest): unknown[] => (isKnn(r) ? r.body.knn.filter : r.body.query.bool.filter);

let adapters: ElasticsearchSearchIndex[] = [];
const track = (adapter: ElasticsearchSearchIndex) => {
  adapters.push(adapter);
  return adapter;
};
afterEach(async () => {
  await Promise.all(adapters.map((adapter) => adapter.close()));
  adapters = [];
});

describe('ElasticsearchSearchIndex.ensureIndex', () => {
  it('creates one physical index with keyword ids, a long version, folded BM25 text and a cosine dense_vector', async () => {
    const cluster = new FakeCluster().on('PUT', `/${PHYSICAL}`, () => ({ acknowledged: true }));
    const index = track(cluster.adapter());
    await index.ensureIndex(INDEX, { dimensions: 384 });

    const [create] = cluster.sent('PUT', `/${PHYSICAL}`);
    const { settings, mappings } = create!.body;
    expect(mappings._meta).toEqual({ dimensions: 384 });
    expect(mappings.dynamic).toBe('strict');
    expect(mappings.properties.embedding).toEqual({
      type: 'dense_vector',
      dims: 384,
      index: true,
      similarity: 'cosine',
      index_options: { type: 'hnsw' },
    });
    for (const field of ['kind', 'chunkId', 'documentId', 'ownerId', 'tagIds']) {
      expect(mappings.properties[field]).toEqual({ type: 'keyword' });
    }
    expect(mappings.properties.version).toEqual({ type: 'long' });
    expect(mappings.properties.text).toEqual({ type: 'text', analyzer: 'knowledge_text' });
    expect(settings.analysis.analyzer.knowledge_text).toEqual({
      type: 'custom',
      tokenizer: 'standard',
      filter: ['lowercase', 'asciifolding'],
    });
    expect(settings.number_of_shards).toBe(1);
    // Only the adapter's own refreshes make writes visible (see the adapter's header).
    expect(settings.refresh_interval).toBe('-1');

    // The dimensions are known from then on: a search reads no mapping.
    cluster.on('POST', `/${PHYSICAL}/_search`, () => hitsOf([]));
    await index.search(INDEX, { text: 'x', embedding: new Array(384).fill(1), ownerIds: ['a'], limit: 5 });
    expect(cluster.sent('GET', '/_mapping')).toHaveLength(0);
  });

  it('accepts an existing index of the same dimensions and refuses other dimensions', async () => {
    const cluster = new FakeCluster()
      .on('PUT', `/${PHYSICAL}`, () => errorOf(400, 'resource_already_exists_exception'))
      .withIndex(PHYSICAL, 8);
    const index = track(cluster.adapter());
    await index.ensureIndex(INDEX, { dimensions: 8 });
    await expect(index.ensureIndex(INDEX, { dimensions: 16 })).rejects.toMatchObject({
      kind: 'conflict',
      code: 'search_index_dimensions_conflict',
    });
  });

  it('keeps its indexes under the prefix and refuses bad names before sending anything', async () => {
    const cluster = new FakeCluster().on('PUT', '/kb_test_chunks_v1', () => ({ acknowledged: true }));
    const index = track(cluster.adapter('kb_test_'));
    await index.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    expect(cluster.trail()).toEqual(['PUT /kb_test_chunks_v1']);
    await expect(index.ensureIndex('Chunks', { dimensions: DIMENSIONS })).rejects.toMatchObject({
      kind: 'validation',
    });
    await expect(index.ensureIndex(INDEX, { dimensions: 0 })).rejects.toMatchObject({ kind: 'validation' });
    expect(cluster.requests).toHaveLength(1);
    expect(() => cluster.adapter('Bad-Prefix')).toThrow(/not an index prefix/);
  });
});

describe('ElasticsearchSearchIndex.search requests', () => {
  const searching = () => {
    const cluster = new FakeCluster()
      .withIndex(PHYSICAL, DIMENSIONS)
      .on('POST', `/${PHYSICAL}/_search`, () => hitsOf([]));
    return { cluster, index: track(cluster.adapter()) };
  };
  const MODES: readonly SearchMode[] = ['hybrid', 'bm25', 'vector'];

  it('filters by owner inside both legs, in every mode, with and without tags', async () => {
    for (const mode of MODES) {
      for (const tagIds of [undefined, [], ['tag_red', 'tag_blue', 'tag_red']]) {
        const { cluster, index } = searching();
        await index.search(INDEX, {
          text: 'proxy certificate',
          embedding: [0.1, 0.2, 0.3, 0.4],
          ownerIds: ['agt_1', 'spc_1', 'global', 'agt_1'],
          tagIds,
          mode,
          limit: 10,
        });
        const legs = cluster.sent('POST', '/_search');
        expect(legs.map((r) => (isKnn(r) ? 'vector' : 'bm25')).sort()).toEqual(
          mode === 'hybrid' ? ['bm25', 'vector'] : [mode],
        );
        for (const leg of legs) {
          // Never both in one request: a query beside a knn would be combined, not kept as two rankings.
          expect(isBm25(leg) && isKnn(leg)).toBe(false);
          const filters = filtersOf(leg);
          expect(filters).toContainEqual({ term: { kind: 'chunk' } });
          expect(filters).toContainEqual({ terms: { ownerId: ['agt_1', 'spc_1', 'global'] } });
          if (tagIds?.length) expect(filters).toContainEqual({ terms: { tagIds: ['tag_red', 'tag_blue'] } });
          else expect(JSON.stringify(filters)).not.toContain('tagIds');
          expect(leg.body.post_filter).toBeUndefined();
          expect(leg.body._source).not.toContain('embedding');
          expect(leg.body.size).toBe(candidatesPerLeg(10));
        }
        const bm25 = legs.find(isBm25);
        if (bm25) {
          expect(bm25.body.query.bool.must).toEqual([{ match: { text: { query: 'proxy certificate' } } }]);
        }
        const knn = legs.find(isKnn);
        if (knn) {
          expect(knn.body.knn).toMatchObject({
            field: 'embedding',
            query_vector: [0.1, 0.2, 0.3, 0.4],
            k: candidatesPerLeg(10),
          });
          expect(knn.body.knn.num_candidates).toBeGreaterThan(knn.body.knn.k);
        }
      }
    }
  });

  it('asks each leg for candidatesPerLeg(limit), within the kNN search limit', async () => {
    const { cluster, index } = searching();
    await index.search(INDEX, { text: 'a', embedding: [1, 0, 0, 0], ownerIds: ['o'], limit: 5000 });
    const knn = cluster.sent('POST', '/_search').find(isKnn)!;
    expect(knn.body.knn.k).toBe(candidatesPerLeg(1000));
    expect(knn.body.knn.num_candidates).toBe(8000);
    expect(cluster.sent('POST', '/_search').find(isBm25)!.body.size).toBe(candidatesPerLeg(1000));
  });

  it('sends no search for no owners or a zero limit, and no leg that could not match', async () => {
    const { cluster, index } = searching();
    const base = { text: 'words', embedding: [1, 0, 0, 0], limit: 5 };
    expect(await index.search(INDEX, { ...base, ownerIds: [] })).toEqual([]);
    expect(await index.search(INDEX, { ...base, ownerIds: ['o'], limit: 0 })).toEqual([]);
    expect(cluster.sent('POST', '/_search')).toHaveLength(0);
    // A zero vector has no direction (Elasticsearch refuses it for cosine); text without words matches nothing.
    await index.search(INDEX, { ...base, ownerIds: ['o'], embedding: [0, 0, 0, 0] });
    await index.search(INDEX, { ...base, ownerIds: ['o'], embedding: [] });
    await index.search(INDEX, { ...base, ownerIds: ['o'], text: '"(*)" -- ^' });
    const legs = cluster.sent('POST', '/_search');
    expect(legs.filter(isBm25)).toHaveLength(2);
    expect(legs.filter(isKnn)).toHaveLength(1);
  });

  it('sends user text as plain words of a match query, never as query syntax', async () => {
    const { cluster, index } = searching();
    await index.search(INDEX, {
      text:
        'alpha" OR "1"="1 NOT (beta*) text:alpha ' + Array.from({ length: 100 }, (_, n) => `w${n}`).join(' '),
      embedding: [],
      ownerIds: ['o'],
      mode: 'bm25',
      limit: 5,
    });
    const [bm25] = cluster.sent('POST', '/_search');
    const words = bm25!.body.query.bool.must[0].match.text.query.split(' ');
    expect(words.slice(0, 6)).toEqual(['alpha', 'OR', '1', 'NOT', 'beta', 'text']);
    expect(words).toHaveLength(32);
    expect(JSON.stringify(bm25!.body)).not.toMatch(/query_string|simple_query_string/);
  });

  it('checks the index and the query embedding before searching', async () => {
    const cluster = new FakeCluster().on('GET', '/knowledge_missing/_mapping', indexNotFound);
    const index = track(cluster.adapter());
    await expect(
      index.search('missing', { text: 'x', embedding: [], ownerIds: ['o'], limit: 5 }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    const { cluster: other, index: existing } = searching();
    await expect(
      existing.search(INDEX, { text: 'x', embedding: [1, 2], ownerIds: ['o'], limit: 5 }),
    ).rejects.toMatchObject({ kind: 'validation' });
    await expect(
      existing.search(INDEX, {
        text: 'x',
        embedding: [],
        ownerIds: ['o'],
        limit: 5,
        mode: 'fuzzy' as SearchMode,
      }),
    ).rejects.toMatchObject({ kind: 'validation' });
    expect(other.sent('POST', '/_search')).toHaveLength(0);
  });
});

describe('ElasticsearchSearchIndex.search results', () => {
  // The hybrid scenario of the contract: one chunk only BM25 ranks high, one both legs do, one only the vector leg.
  const doc = [
    chunk('doc_a', 1, 0, 'alpha alpha alpha', [0, 0, 0, 1]),
    chunk('doc_a', 1, 1, 'alpha report', [1, 0.1, 0, 0]),
    chunk('doc_a', 1, 2, 'beta gamma', [1, 0.3, 0, 0]),
    chunk('doc_a', 1, 3, 'delta', [-1, 0, 0, 0]),
  ];

  it('fuses the legs exactly as the SQLite adapter does, scores and ranks included', async () => {
    const sqlite = new SqliteSearchIndex({ path: ':memory:' });
    await sqlite.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    await sqlite.upsertDocument(INDEX, 'doc_a', 1, doc);
    const query = { text: 'alpha', embedding: [1, 0, 0, 0], ownerIds: ['agt_1'], limit: 10 };
    const legOrder = async (mode: SearchMode) => {
      const ids = (await sqlite.search(INDEX, { ...query, mode })).map((hit) => hit.chunkId);
      return ids.map((id) => doc.find((c) => c.chunkId === id)!);
    };
    const [bm25, vector] = [await legOrder('bm25'), await legOrder('vector')];
    // Elasticsearch answers each leg with the order SQLite's leg found.
    const cluster = new FakeCluster()
      .withIndex(PHYSICAL, DIMENSIONS)
      .on('POST', `/${PHYSICAL}/_search`, (request) => hitsOf(isKnn(request) ? vector : bm25));
    const index = track(cluster.adapter());
    for (const mode of ['hybrid', 'bm25', 'vector'] as const) {
      expect(await index.search(INDEX, { ...query, mode })).toEqual(
        await sqlite.search(INDEX, { ...query, mode }),
      );
    }
    const hybrid = await index.search(INDEX, query);
    expect(hybrid.map((hit) => [hit.text, hit.bm25Rank, hit.vectorRank])).toEqual([
      ['alpha report', 2, 1],
      ['alpha alpha alpha', 1, 3],
      ['beta gamma', null, 2],
      ['delta', null, 4],
    ]);
    expect(hybrid[0]!.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1), 12);
    expect(hybrid[0]).toMatchObject({
      chunkId: 'doc_a-v1-1',
      documentId: 'doc_a',
      documentName: 'doc_a.md',
      sectionPath: ['Guide', 'Part 1'],
      start: 100,
      end: 112,
    });
    expect(await index.search(INDEX, { ...query, limit: 1 })).toEqual(hybrid.slice(0, 1));
    await sqlite.close();
  });

  it('keeps one version per document in a response: chunks older than the newest seen are dropped', async () => {
    const v1 = [chunk('doc_a', 1, 0, 'old one', [1, 0, 0, 0]), chunk('doc_a', 1, 1, 'old two', [1, 0, 0, 0])];
    const v2 = [chunk('doc_a', 2, 0, 'new one', [1, 0, 0, 0])];
    const other = [chunk('doc_b', 1, 0, 'other', [1, 0, 0, 0])];
    // Mid-upsert: the BM25 leg still saw only version 1, the vector leg both.
    const cluster = new FakeCluster()
      .withIndex(PHYSICAL, DIMENSIONS)
      .on('POST', `/${PHYSICAL}/_search`, (request) =>
        hitsOf(isKnn(request) ? [v1[0]!, v2[0]!, other[0]!, v1[1]!] : [v1[1]!, other[0]!, v1[0]!]),
      );
    const index = track(cluster.adapter());
    const hits = await index.search(INDEX, {
      text: 'one',
      embedding: [1, 0, 0, 0],
      ownerIds: ['agt_1'],
      limit: 10,
    });
    expect(hits.map((hit) => [hit.chunkId, hit.bm25Rank, hit.vectorRank])).toEqual([
      ['doc_b-v1-0', 1, 2],
      ['doc_a-v2-0', null, 1],
    ]);
  });
});

describe('ElasticsearchSearchIndex.upsertDocument requests', () => {
  const MARKER = `/${PHYSICAL}/_doc/document:doc_a`;
  const marker = (version: number, seqNo: number) => () => ({
    _index: PHYSICAL,
    _id: 'document:doc_a',
    found: true,
    _seq_no: seqNo,
    _primary_term: 1,
    _source: { kind: 'document', documentId: 'doc_a', ownerId: 'agt_1', version, chunks: 2 },
  });
  // What Elasticsearch answers for a missing document: a 404 without an error.
  const absent = () =>
    new errors.ResponseError({
      body: { _index: PHYSICAL, _id: 'document:doc_a', found: false },
      statusCode: 404,
    });
  const v2 = [
    chunk('doc_a', 2, 0, 'first part', [1, 0, 0, 0], ['tag_x', 'tag_x', 'tag_y']),
    chunk('doc_a', 2, 1, 'second part', [0, 0, 0, 0]),
  ];
  const writing = (...markers: (() => unknown)[]) =>
    new FakeCluster()
      .withIndex(PHYSICAL, DIMENSIONS)
      .on('GET', MARKER, ...markers)
      .on('PUT', MARKER, () => ({ result: 'updated' }))
      .on('POST', '/_bulk', () => ({ errors: false, took: 1, items: [] }))
      .on('POST', `/${PHYSICAL}/_delete_by_query`, () => ({
        deleted: 3,
        version_conflicts: 0,
        failures: [],
      }));

  it('claims the marker, indexes and refreshes the new chunks, then deletes the older ones', async () => {
    const cluster = writing(marker(1, 7), marker(2, 8));
    const index = track(cluster.adapter());
    await index.upsertDocument(INDEX, 'doc_a', 2, v2);

    expect(cluster.trail()).toEqual([
      `GET /${PHYSICAL}/_mapping`,
      `GET ${MARKER}`,
      `PUT ${MARKER}`,
      'POST /_bulk',
      `GET ${MARKER}`,
      `POST /${PHYSICAL}/_delete_by_query`,
    ]);
    const [claim] = cluster.sent('PUT', MARKER);
    // Compare-and-set on what was read: a concurrent writer makes this fail and start over.
    expect(claim!.querystring).toMatchObject({ if_seq_no: '7', if_primary_term: '1' });
    expect(claim!.body).toEqual({
      kind: 'document',
      documentId: 'doc_a',
      ownerId: 'agt_1',
      version: 2,
      chunks: 2,
    });

    const [bulk] = cluster.sent('POST', '/_bulk');
    expect(bulk!.querystring).toMatchObject({ refresh: 'true' });
    expect(bulk!.body).toEqual([
      { index: { _index: PHYSICAL, _id: 'chunk:2:doc_a-v2-0' } },
      {
        kind: 'chunk',
        chunkId: 'doc_a-v2-0',
        documentId: 'doc_a',
        ownerId: 'agt_1',
        tagIds: ['tag_x', 'tag_y'],
        version: 2,
        text: 'first part',
        embedding: [1, 0, 0, 0],
        citation: { documentName: 'doc_a.md', sectionPath: ['Guide', 'Part 0'], start: 0, end: 10 },
      },
      { index: { _index: PHYSICAL, _id: 'chunk:2:doc_a-v2-1' } },
      // A zero vector is left out: cosine cannot compare it (and Elasticsearch would refuse the chunk).
      expect.not.objectContaining({ embedding: expect.anything() }),
    ]);

    const [sweep] = cluster.sent('POST', '/_delete_by_query');
    expect(sweep!.querystring).toMatchObject({ refresh: 'true', conflicts: 'proceed' });
    expect(sweep!.body.query).toEqual({
      bool: {
        filter: [
          { term: { kind: 'chunk' } },
          { term: { documentId: 'doc_a' } },
          {
            bool: {
              should: [
                { range: { version: { lt: 2 } } },
                {
                  bool: {
                    filter: [{ term: { version: 2 } }],
                    must_not: [{ ids: { values: ['chunk:2:doc_a-v2-0', 'chunk:2:doc_a-v2-1'] } }],
                  },
                },
              ],
              minimum_should_match: 1,
            },
          },
        ],
      },
    });
  });

  it('creates the marker of a new document only if nobody else did (op_type create)', async () => {
    const cluster = writing(absent, marker(2, 0));
    await track(cluster.adapter()).upsertDocument(INDEX, 'doc_a', 2, v2);
    const [claim] = cluster.sent('PUT', MARKER);
    expect(claim!.querystring).toMatchObject({ op_type: 'create' });
    expect(claim!.querystring.if_seq_no).toBeUndefined();
  });

  it('writes nothing for a version older than the indexed one', async () => {
    const cluster = writing(marker(5, 3));
    await track(cluster.adapter()).upsertDocument(INDEX, 'doc_a', 2, v2);
    expect(cluster.trail()).toEqual([`GET /${PHYSICAL}/_mapping`, `GET ${MARKER}`]);
  });

  it('reads the marker again and retries when another writer changed it first', async () => {
    const cluster = writing(marker(1, 7), marker(1, 9), marker(2, 10)).on(
      'PUT',
      MARKER,
      () => errorOf(409, 'version_conflict_engine_exception'),
      () => ({ result: 'updated' }),
    );
    await track(cluster.adapter()).upsertDocument(INDEX, 'doc_a', 2, v2);
    expect(cluster.sent('PUT', MARKER).map((r) => r.querystring.if_seq_no)).toEqual(['7', '9']);
    expect(cluster.sent('POST', '/_bulk')).toHaveLength(1);
  });

  it('when a newer version was claimed meanwhile, deletes everything older than it, its own chunks included', async () => {
    const cluster = writing(marker(1, 7), marker(3, 9));
    await track(cluster.adapter()).upsertDocument(INDEX, 'doc_a', 2, v2);
    const [sweep] = cluster.sent('POST', '/_delete_by_query');
    expect(sweep!.body.query.bool.filter[2]).toEqual({ range: { version: { lt: 3 } } });
  });

  it('a version without chunks writes no chunk and deletes all of the document’s', async () => {
    const cluster = writing(marker(1, 7), marker(2, 8));
    await track(cluster.adapter()).upsertDocument(INDEX, 'doc_a', 2, []);
    expect(cluster.sent('POST', '/_bulk')).toHaveLength(0);
    expect(cluster.sent('PUT', MARKER)[0]!.body).toMatchObject({ version: 2, chunks: 0 });
    const [sweep] = cluster.sent('POST', '/_delete_by_query');
    expect(sweep!.body.query.bool.filter[2]).toEqual({
      bool: {
        should: [{ range: { version: { lt: 2 } } }, { bool: { filter: [{ term: { version: 2 } }] } }],
        minimum_should_match: 1,
      },
    });
  });

  it('refuses chunks of the wrong dimensions or of another document before writing', async () => {
    const cluster = writing(marker(1, 7));
    const index = track(cluster.adapter());
    await expect(
      index.upsertDocument(INDEX, 'doc_a', 2, [chunk('doc_a', 2, 0, 'x', [1, 0])]),
    ).rejects.toMatchObject({ kind: 'validation' });
    await expect(
      index.upsertDocument(INDEX, 'doc_a', 2, [chunk('doc_b', 2, 0, 'x', [1, 0, 0, 0])]),
    ).rejects.toMatchObject({ kind: 'validation' });
    expect(cluster.trail()).toEqual([`GET /${PHYSICAL}/_mapping`]);
  });

  it('reports a chunk Elasticsearch refused', async () => {
    const cluster = writing(marker(1, 7), marker(2, 8)).on('POST', '/_bulk', () => ({
      errors: true,
      took: 1,
      items: [
        {
          index: {
            _index: PHYSICAL,
            _id: 'chunk:2:doc_a-v2-0',
            status: 400,
            error: { type: 'document_parsing_exception', reason: 'bad vector' },
          },
        },
      ],
    }));
    await expect(track(cluster.adapter()).upsertDocument(INDEX, 'doc_a', 2, v2)).rejects.toThrow(
      /chunk:2:doc_a-v2-0.*document_parsing_exception: bad vector/,
    );
    expect(cluster.sent('POST', '/_delete_by_query')).toHaveLength(0);
  });

  it('gives a chunk id too long for Elasticsearch a digest instead', () => {
    expect(chunkDocumentId(3, 'doc:3:0')).toBe('chunk:3:doc:3:0');
    const long = chunkDocumentId(3, 'x'.repeat(600));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(512);
    expect(long).not.toBe(chunkDocumentId(3, 'x'.repeat(601)));
  });
});

describe('ElasticsearchSearchIndex deletes, tags, aliases and stats', () => {
  it('deletes a document’s chunks and marker by query, refreshed, again while writes conflicted', async () => {
    const cluster = new FakeCluster().withIndex(PHYSICAL, DIMENSIONS).on(
      'POST',
      `/${PHYSICAL}/_delete_by_query`,
      () => ({ deleted: 2, version_conflicts: 1, failures: [] }),
      () => ({ deleted: 1, version_conflicts: 0, failures: [] }),
    );
    await track(cluster.adapter()).deleteDocument(INDEX, 'doc_a');
    const sent = cluster.sent('POST', '/_delete_by_query');
    expect(sent).toHaveLength(2);
    for (const request of sent) {
      expect(request.body).toEqual({ query: { term: { documentId: 'doc_a' } } });
      expect(request.querystring).toMatchObject({ refresh: 'true', conflicts: 'proceed' });
    }
  });

  it('replaces the tags of all of a document’s chunks with one update-by-query script', async () => {
    const cluster = new FakeCluster()
      .withIndex(PHYSICAL, DIMENSIONS)
      .on('POST', `/${PHYSICAL}/_update_by_query`, () => ({
        updated: 12,
        version_conflicts: 0,
        failures: [],
      }));
    const index = track(cluster.adapter());
    await index.setDocumentTags(INDEX, 'doc_a', ['tag_b', 'tag_a', 'tag_b']);
    const [update] = cluster.sent('POST', '/_update_by_query');
    expect(update!.querystring).toMatchObject({ refresh: 'true' });
    // The client sends `conflicts` of an update-by-query in the body, where Elasticsearch accepts it too.
    expect(update!.body).toEqual({
      conflicts: 'proceed',
      query: { bool: { filter: [{ term: { kind: 'chunk' } }, { term: { documentId: 'doc_a' } }] } },
      script: {
        source: 'ctx._source.tagIds = params.tagIds',
        lang: 'painless',
        params: { tagIds: ['tag_b', 'tag_a'] },
      },
    });
    await expect(index.setDocumentTags(INDEX, 'doc_a', [''])).rejects.toMatchObject({ kind: 'validation' });
    expect(cluster.sent('POST', '/_update_by_query')).toHaveLength(1);
  });

  it('switches an alias with one _aliases call that removes and adds', async () => {
    const cluster = new FakeCluster()
      .withIndex('knowledge_chunks_v2', DIMENSIONS)
      .on('POST', '/_aliases', () => ({ acknowledged: true }))
      .on('GET', '/knowledge_missing/_mapping', indexNotFound);
    const index = track(cluster.adapter());
    await index.setLive('knowledge', 'chunks_v2');
    const calls = cluster.sent('POST', '/_aliases');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({
      actions: [
        { remove: { index: 'knowledge_*', alias: 'knowledge_alias-knowledge', must_exist: false } },
        { add: { index: 'knowledge_chunks_v2', alias: 'knowledge_alias-knowledge' } },
      ],
    });
    await expect(index.setLive('knowledge', 'missing')).rejects.toMatchObject({ kind: 'not_found' });
    expect(cluster.sent('POST', '/_aliases')).toHaveLength(1);
  });

  it('reads the live index of an alias, null when it has none', async () => {
    const cluster = new FakeCluster()
      .on('GET', '/_alias/knowledge_alias-knowledge', () => ({
        knowledge_chunks_v2: { aliases: { 'knowledge_alias-knowledge': {} } },
      }))
      .on('GET', '/_alias/knowledge_alias-knowledge_building', () =>
        errorOf(404, 'aliases_not_found_exception'),
      );
    const index = track(cluster.adapter());
    expect(await index.liveIndex('knowledge')).toBe('chunks_v2');
    expect(await index.liveIndex('knowledge_building')).toBeNull();
    await expect(index.liveIndex('Not An Alias')).rejects.toMatchObject({ kind: 'validation' });
  });

  it('refuses to drop an index an alias points at, drops it otherwise, and ignores an absent one', async () => {
    const cluster = new FakeCluster()
      .on('GET', '/knowledge_live/_alias', () => ({
        knowledge_live: { aliases: { 'knowledge_alias-knowledge': {} } },
      }))
      .on('GET', '/knowledge_old/_alias', () => ({ knowledge_old: { aliases: {} } }))
      .on('DELETE', '/knowledge_old', () => ({ acknowledged: true }))
      .on('GET', '/knowledge_gone/_alias', indexNotFound);
    const index = track(cluster.adapter());
    await expect(index.dropIndex('live')).rejects.toMatchObject({
      kind: 'conflict',
      message: expect.stringContaining("live for 'knowledge'"),
    });
    await index.dropIndex('old');
    await index.dropIndex('gone');
    expect(cluster.sent('DELETE', '')).toEqual([expect.objectContaining({ path: '/knowledge_old' })]);
  });

  it('counts chunks and the documents that have any', async () => {
    const cluster = new FakeCluster().on('POST', `/${PHYSICAL}/_search`, () => ({
      hits: { hits: [] },
      aggregations: { chunks: { doc_count: 6 }, documents: { doc_count: 3 } },
    }));
    expect(await track(cluster.adapter()).stats(INDEX)).toEqual({ chunks: 6, documents: 3 });
    const [request] = cluster.sent('POST', '/_search');
    expect(request!.body).toMatchObject({
      size: 0,
      aggs: {
        chunks: { filter: { term: { kind: 'chunk' } } },
        documents: {
          filter: { bool: { filter: [{ term: { kind: 'document' } }, { range: { chunks: { gt: 0 } } }] } },
        },
      },
    });
    const missing = new FakeCluster().on('POST', '/knowledge_nope/_search', indexNotFound);
    await expect(track(missing.adapter()).stats('nope')).rejects.toMatchObject({ kind: 'not_found' });
  });
});
