// Jest globalTeardown (jest.config.js): see temp-root.js.
export { teardown as default } from './temp-root.js';
