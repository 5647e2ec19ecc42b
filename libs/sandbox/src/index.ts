export * from './sandbox.port.js';
export { BubblewrapSandbox } from './bubblewrap/bubblewrap-sandbox.js';
export type { BubblewrapSandboxOptions } from './bubblewrap/bubblewrap-sandbox.js';
