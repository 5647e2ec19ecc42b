export * from './projection-health.js';
export * from './projection-metrics.js';
export * from './projection-health.query.js';
