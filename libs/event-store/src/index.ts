export * from './event-store.port.js';
export * from './upcasters.js';
export * from './sqlite/sqlite-event-store.js';
