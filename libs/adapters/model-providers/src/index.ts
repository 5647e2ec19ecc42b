export * from './input-limits.js';
export * from './model.js';
export * from './model-providers.js';
export * from './model-registry.js';
export * from './offline/offline-pool.js';
export * from './offline/offline-responder.js';
export * from './offline/words.js';
export * from './provider.port.js';
