// Container Apps through the Docker Engine the sandbox already speaks (openContainerEngine): pull the image (with the
// App's registry credentials, opened from their sealed stream, as X-Registry-Auth), create a container with its port
// published on loopback, start it, and read where it listens. Without a reachable Engine the outcome is an error
// that becomes the App's lastError; nothing else is affected.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { openContainerEngine, type ContainerEngine } from '#sandbox';
import { appCredentialsStreamId, type RegistryCredentials } from './app-credentials.events.js';
import { appCredentialsDecider } from './app-credentials.decider.js';

export type ContainerOutcome =
  { readonly containerId: string; readonly upstreamUrl: string } | { readonly error: string };

@Injectable()
export class AppContainers implements OnModuleDestroy {
  private readonly engine: ContainerEngine;

  constructor(
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
  ) {
    this.engine = openContainerEngine(config.sandbox.dockerEndpoint);
  }

  async onModuleDestroy(): Promise<void> {
    await this.engine.close();
  }

  /** Starts (or restarts) the App's container; the address the proxy sends to, or why it could not. */
  async start(appId: string, image: string, port: number): Promise<ContainerOutcome> {
    const name = `agent-platform-app-${appId.replace(/[^A-Za-z0-9_.-]/g, '')}`;
    try {
      try {
        await this.engine.call('GET', '/_ping', undefined, [200], 'ping');
      } catch {
        return { error: `no container engine is reachable at ${this.engine.where}` };
      }
      const credentials = await this.credentials(appId);
      const auth: Record<string, string> = credentials
        ? { 'x-registry-auth': Buffer.from(JSON.stringify(credentials)).toString('base64url') }
        : {};
      await this.engine.call(
        'POST',
        `/images/create?fromImage=${encodeURIComponent(image)}`,
        undefined,
        [200],
        'pull the image',
        auth,
      );
      await this.engine.call('DELETE', `/containers/${name}?force=true`, undefined, [204, 404], 'remove');
      const exposed = `${port}/tcp`;
      const created = await this.engine.call(
        'POST',
        `/containers/create?name=${name}`,
        {
          Image: image,
          ExposedPorts: { [exposed]: {} },
          Labels: { 'agent-platform.app': appId },
          HostConfig: {
            PortBindings: { [exposed]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
            RestartPolicy: { Name: 'unless-stopped' },
            CapDrop: ['ALL'],
            SecurityOpt: ['no-new-privileges'],
          },
        },
        [201],
        'create the container',
      );
      const containerId = (JSON.parse(Buffer.from(created.body).toString('utf8')) as { Id: string }).Id;
      await this.engine.call(
        'POST',
        `/containers/${name}/start`,
        undefined,
        [204, 304],
        'start the container',
      );
      const inspected = await this.engine.call(
        'GET',
        `/containers/${name}/json`,
        undefined,
        [200],
        'inspect',
      );
      const ports = (
        JSON.parse(Buffer.from(inspected.body).toString('utf8')) as {
          NetworkSettings?: { Ports?: Record<string, { HostIp: string; HostPort: string }[] | null> };
        }
      ).NetworkSettings?.Ports?.[exposed];
      const hostPort = ports?.[0]?.HostPort;
      if (!hostPort) return { error: `the container does not publish port ${port}` };
      return { containerId, upstreamUrl: `http://127.0.0.1:${hostPort}` };
    } catch (error) {
      return { error: (error as Error).message.slice(0, 300) };
    }
  }

  private async credentials(appId: string): Promise<RegistryCredentials | null> {
    const { state } = await this.aggregates.load(appCredentialsStreamId(appId), appCredentialsDecider);
    const opened = await this.cipher.open(state.sealed);
    return opened ? (JSON.parse(opened) as RegistryCredentials) : null;
  }
}
