export * from './infrastructure.module.js';
export * from './logger.js';
