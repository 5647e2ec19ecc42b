// The App proxy's routes (`/app/{id}/…`, and the older bridge path's redirect), which the Apps context puts on the
// application's HTTP server: a route like the others, with its row in the route table (`ALL /app/{appId}/{path}`). They
// are raw Fastify routes because a Nest controller would parse the body and could not hand over a websocket: the proxy
// streams both ways unparsed (app-proxy.ts). The application's start registers them where raw routes go: after the
// body parsers of its own plugins, before the hooks and error handling of its controllers' routes.
import type { AddressInfo } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { ApiKeyGuard } from '#access';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AppSessionTokens } from '../app-session-token.js';
import { registerAppProxy, registerBridgeRedirect } from './app-proxy.js';

/**
 * The platform's effective public URL, what it gives Apps as `svc_server_url`: PUBLIC_URL, else http://HOST:PORT, with
 * the port the server is bound to when PORT is 0 (any free port).
 */
export const publicUrlOf = (config: PlatformConfig, bound: AddressInfo | string | null): string =>
  config.people.publicUrlSet || config.port !== 0 || typeof bound !== 'object' || bound === null
    ? config.people.publicUrl
    : config.people.publicUrl.replace(/:0$/, `:${bound.port}`);

@Injectable()
export class AppProxyRoutes {
  constructor(
    private readonly guard: ApiKeyGuard,
    private readonly tokens: AppSessionTokens,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  private server: FastifyInstance | null = null;

  /** `svc_server_url`, for the platform's own calls to Apps too (their tools and documents). */
  serverUrl(): string {
    return publicUrlOf(this.config, this.server?.server.address() ?? null);
  }

  async registerOn(fastify: FastifyInstance): Promise<void> {
    this.server = fastify;
    await registerAppProxy(fastify, {
      readStore: this.readStore,
      tokens: this.tokens,
      sessionUser: (request) => this.guard.sessionUser(request),
      serverUrl: () => this.serverUrl(),
      appOrigin: this.config.apps.appOrigin,
      timeoutMs: this.config.apps.proxyTimeoutMs,
    });
    registerBridgeRedirect(fastify);
  }
}
