export * from './model-gateway.module.js';
export * from './http/sse.js';
export * from './model-gateway.js';
