export * from './search-index.port.js';
export * from './sqlite/sqlite-search-index.js';
export * from './elasticsearch/elasticsearch-search-index.js';
