export * from './llm.module.js';
