export * from './rate-limit-store.port.js';
export * from './open-rate-limit-store.js';
