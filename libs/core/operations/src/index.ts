export * from './projection-health.js';
export * from './projection-metrics.js';
export * from './projection-health.query.js';
export * from './projection-rebuild.events.js';
export * from './commands/request-projection-rebuild/request-projection-rebuild.command.js';
