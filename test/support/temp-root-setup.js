// Jest globalSetup (jest.config.js): see temp-root.js.
export { setup as default } from './temp-root.js';
