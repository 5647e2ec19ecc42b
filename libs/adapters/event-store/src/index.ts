export * from './event-store.port.js';
export * from './upcasters.js';
export * from './open-event-store.js';
