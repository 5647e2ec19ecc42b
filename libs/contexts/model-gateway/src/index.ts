export * from './model-gateway.module.js';
export * from './http/sse.js';
export * from './model-gateway.js';
export * from './stored-responses/stored-response.events.js';
export * from './stored-responses/stored-responses.read-model.js';
export { StoredResponseErasureProcess } from './stored-responses/stored-response-erasure.process.js';
export { StoredResponseSweeper } from './stored-responses/stored-response-sweeper.js';
