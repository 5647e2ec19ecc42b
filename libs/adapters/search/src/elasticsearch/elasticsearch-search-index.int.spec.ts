// The SearchIndex contract against a real Elasticsearch when ELASTICSEARCH_URL is set, under a throwaway index
// prefix removed afterwards; then what only this adapter has to show: concurrent writers of one document.
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { skipWithReason } from '#testing/fixtures';
import { searchIndexContract } from '../search-index.contract.js';
import type { IndexedChunk } from '../search-index.port.js';
import { ElasticsearchSearchIndex } from './elasticsearch-search-index.js';

const url = process.env.ELASTICSEARCH_URL;

if (url) {
  const prefix = `knowledge_test_${randomUUID().replace(/-/g, '').slice(0, 12)}_`;
  searchIndexContract('elasticsearch', async () => new ElasticsearchSearchIndex({ client: url, prefix }));

  describe('ElasticsearchSearchIndex specifics', () => {
    let search: ElasticsearchSearchIndex;
    beforeAll(() => {
      search = new ElasticsearchSearchIndex({ client: url, prefix });
    });
    afterAll(async () => {
      await search.close();
    });

    it('leaves exactly the newest version when writers of several versions race', async () => {
      const index = `race_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
      await search.ensureIndex(index, { dimensions: 2 });
      const versionOf = (version: number): IndexedChunk[] =>
        Array.from({ length: version + 1 }, (_, n) => ({
          chunkId: `doc:${version}:${n}`,
          documentId: 'doc',
          version,
          ownerId: 'agt_1',
          tagIds: [],
          sectionPath: [],
          start: 0,
          end: 4,
          text: `race version ${version} part ${n}`,
          embedding: [1, n],
          documentName: 'doc.md',
        }));
      const versions = [1, 2, 3, 4, 5, 6].map(versionOf);
      // Newest first among others, so that older writers arrive after it.
      await Promise.all(
        [versions[5]!, ...versions.slice(0, 5)].map((chunks) =>
          search.upsertDocument(index, 'doc', chunks[0]!.version, chunks),
        ),
      );
      const hits = await search.search(index, {
        text: 'race',
        embedding: [1, 0],
        ownerIds: ['agt_1'],
        limit: 100,
      });
      expect(hits.map((hit) => hit.chunkId).sort()).toEqual(versions[5]!.map((c) => c.chunkId).sort());
      expect(await search.stats(index)).toEqual({ chunks: 7, documents: 1 });
      await search.dropIndex(index);
    });
  });

  afterAll(async () => {
    const client = new Client({ node: url });
    try {
      const left = Object.keys(await client.indices.get({ index: `${prefix}*` }));
      if (left.length > 0) await client.indices.delete({ index: left });
    } finally {
      await client.close();
    }
  });
} else {
  const suite = 'SearchIndex contract: elasticsearch';
  skipWithReason(
    suite,
    'ELASTICSEARCH_URL is not set (start Elasticsearch, e.g. docker compose -f docker/compose.yml up elasticsearch, and set ELASTICSEARCH_URL=http://localhost:9200)',
  );
  // Jest fails a file without tests: this one records why the contract did not run.
  it(`${suite} did not run: no ELASTICSEARCH_URL`, () => expect(url).toBeUndefined());
}
