export * from './infrastructure.module.js';
export * from './logger.js';
export * from './tracing-sdk.js';
