export * from './agent-generation.module.js';
