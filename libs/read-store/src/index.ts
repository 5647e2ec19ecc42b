export * from './read-store.port.js';
export * from './sqlite/sqlite-read-store.js';
