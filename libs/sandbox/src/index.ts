export * from './sandbox.port.js';
export { BubblewrapSandbox } from './bubblewrap/bubblewrap-sandbox.js';
export type { BubblewrapSandboxOptions } from './bubblewrap/bubblewrap-sandbox.js';
export { DockerApiError, DockerEngineClient } from './docker/docker-engine-client.js';
export { DockerSandbox } from './docker/docker-sandbox.js';
export type { DockerSandboxOptions } from './docker/docker-sandbox.js';
