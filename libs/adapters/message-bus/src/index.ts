export * from './message-bus.port.js';
export * from './open-message-bus.js';
