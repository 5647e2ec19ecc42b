export * from './sandbox.port.js';
export * from './open-sandbox.js';
