export * from './projection-health.js';
export * from './projection-metrics.js';
