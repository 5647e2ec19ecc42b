// Chooses the search index from configuration: Elasticsearch when configured, else the embedded SQLite index under
// the data directory. The Elasticsearch adapter (and its client) load only when chosen.
import { join } from 'node:path';
import type { PlatformConfig } from '#kernel';
import type { SearchIndex } from './search-index.port.js';
import { SqliteSearchIndex } from './sqlite/sqlite-search-index.js';

export type SearchIndexConfig = Pick<
  PlatformConfig,
  'searchIndex' | 'elasticsearchUrl' | 'dataDir' | 'searchMemory'
>;

export async function openSearchIndex(config: SearchIndexConfig): Promise<SearchIndex> {
  if (config.searchIndex === 'elasticsearch') {
    const { ElasticsearchSearchIndex } = await import('./elasticsearch/elasticsearch-search-index.js');
    return new ElasticsearchSearchIndex({ client: config.elasticsearchUrl! });
  }
  return new SqliteSearchIndex({
    path: join(config.dataDir, 'search.db'),
    vectorCacheBytes: config.searchMemory.vectorCacheBytes,
    bm25Memory: { maxBytes: config.searchMemory.bm25Bytes },
  });
}
