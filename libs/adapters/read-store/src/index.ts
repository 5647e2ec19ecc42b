export * from './read-store.port.js';
export * from './open-read-store.js';
