// Chooses the code sandbox from configuration: a container per sandbox through the Docker Engine, or the embedded
// bubblewrap sandboxes under `root`. Also the Docker Engine client other contexts start containers with.
import type { PlatformConfig } from '#kernel';
import type { CodeSandbox } from './sandbox.port.js';
import { BubblewrapSandbox } from './bubblewrap/bubblewrap-sandbox.js';
import { DockerEngineClient } from './docker/docker-engine-client.js';
import { DockerSandbox } from './docker/docker-sandbox.js';

export function openSandbox(config: Pick<PlatformConfig, 'sandbox'>, root: string): CodeSandbox {
  return config.sandbox.adapter === 'docker'
    ? new DockerSandbox({
        endpoint: config.sandbox.dockerEndpoint,
        image: config.sandbox.image,
        limits: config.sandbox,
      })
    : new BubblewrapSandbox({ root, limits: config.sandbox });
}

/** A container engine's API: requests answered with the statuses expected, else a DockerApiError. */
export type ContainerEngine = Pick<DockerEngineClient, 'where' | 'call' | 'close'>;

/** The Docker Engine at `endpoint` (`unix://…`, `tcp://…` or `http(s)://…`). */
export function openContainerEngine(endpoint: string): ContainerEngine {
  return new DockerEngineClient(endpoint);
}
