export * from './search-index.port.js';
export * from './open-search-index.js';
