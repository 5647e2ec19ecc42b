export * from './platform.module.js';
export * from './command-runner.js';
export * from './logger.js';
