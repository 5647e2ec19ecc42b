export * from './search-index.port.js';
export * from './sqlite/sqlite-search-index.js';
