export * from './events.js';
export * from './errors.js';
export * from './ids.js';
export * from './config/config.js';
export * from './lazy-module.js';
export * from './sqlite/wal-checkpoints.js';
export * from './sqlite/wal-truncate.js';
export * from './seeded-random.js';
