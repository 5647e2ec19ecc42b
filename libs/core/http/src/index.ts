export * from './error-envelope.filter.js';
export * from './openapi.js';
export * from './zod-validation.js';
export * from './multipart.js';
export * from './as-of.js';
