export * from './platform.module.js';
export * from './command-runner.js';
export * from './logger.js';
export * from './command-sender.js';
