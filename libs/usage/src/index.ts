export * from './usage.module.js';
export * from './cost.js';
export * from './usage-limiter.js';
export * from './usage-recorder.js';
export * from './usage-report.js';
export * from './usage.events.js';
export * from './usage.read-model.js';
