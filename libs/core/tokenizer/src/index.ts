export * from './tokenizer.js';
