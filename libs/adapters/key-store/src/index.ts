export * from './key-store.port.js';
export * from './content-cipher.js';
export * from './open-key-store.js';
export { DataKeyUnreadableError } from './key-wrapping.js';
