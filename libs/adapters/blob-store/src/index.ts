export * from './blob-store.port.js';
export * from './open-blob-store.js';
export * from './blob-gc.js';
