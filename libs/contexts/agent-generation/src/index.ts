export * from './agent-generation.module.js';
export { compileSchema, type OutputValidator } from './json-schema.js';
