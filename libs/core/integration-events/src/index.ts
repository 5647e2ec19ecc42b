export * from './integration-event.js';
export * from './relay.js';
