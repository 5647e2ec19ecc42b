export * from './decider.js';
export * from './projector.js';
export * from './projection-runner.js';
export * from './projection-waiter.js';
export * from './unique-claims.js';
export * from './to-do-list-scanner.js';
export * from './process-kit.js';
export * from './as-of.js';
