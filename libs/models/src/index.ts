export * from './grounding.js';
export * from './input-limits.js';
export * from './memory-extraction.js';
export * from './model.js';
export * from './model-providers.js';
export * from './model-registry.js';
export * from './offline/offline-pool.js';
export * from './provider.port.js';
