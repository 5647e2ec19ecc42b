// Operators' and integrators' endpoints: health (liveness, readiness with projection lag), Prometheus metrics, the
// OpenAPI document and its docs page. None needs an API key.
import { PLATFORM_VERSION } from './version.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  Controller,
  Get,
  Header,
  Inject,
  Optional,
  Param,
  Req,
  Res,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { NotFoundError } from '#kernel';
import { QueryBus } from '@nestjs/cqrs';
import { ProjectionRunner } from '#eventsourcing';
import { ApiKeyGuard, Public } from '#access';
import { AdminBootstrap } from '#identity/admin-bootstrap';
import { ApiRoute } from '#http';
import { GetLogHead, GetProjectionHealth, registerProjectionMetrics } from '#operations';
import { registerUsageMetrics } from '#usage/usage-metrics';
import { ModelGateway, streamsOpen } from '#model-gateway';
import { offlinePoolStats } from '#model-providers';
import { UsageRecorder } from '#usage';
import { CODE_SANDBOX, type CodeSandbox } from '#sandbox';
import { OPENAPI_DOCUMENT, type OpenApiDocument } from './openapi.js';
import { HTTP_METRICS } from './http-metrics.js';

// Only the package's folder: its entry module would load the whole browser bundle into the server (~30 MB RSS).
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const DOC_ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
]);

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Platform API</title>
<link rel="stylesheet" href="/api/v1/core/docs/swagger-ui.css"></head>
<body><div id="docs"></div><script src="/api/v1/core/docs/swagger-ui-bundle.js"></script>
<script src="/api/v1/core/docs/init.js"></script></body></html>`;

// A key pasted into "Authorize" lives as long as the tab: persisted, it would stay in localStorage for any script
// of the origin (and any later visitor of the browser profile) to read.
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/core/openapi.json', dom_id: '#docs', persistAuthorization: false });`;

// The docs page holds a pasted API key: no other site may frame it (clickjacking the "Authorize" dialog), it runs
// only its own scripts, and talks only to this instance. Swagger UI sets inline styles and draws icons as data: images.
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const docsHeaders = (reply: FastifyReply): void =>
  void reply
    .header('content-security-policy', DOCS_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff');

@Public()
@Controller()
export class OperationsController implements OnApplicationBootstrap {
  private readonly metrics: Registry;
  private ready = false;

  constructor(
    private readonly queries: QueryBus,
    runner: ProjectionRunner,
    @Inject(OPENAPI_DOCUMENT) private readonly openApi: OpenApiDocument,
    @Inject(HTTP_METRICS) registry: Registry,
    usage: UsageRecorder,
    private readonly guard: ApiKeyGuard,
    private readonly bootstrap: AdminBootstrap,
    private readonly gateway: ModelGateway,
    @Optional() @Inject(CODE_SANDBOX) private readonly sandbox?: CodeSandbox,
  ) {
    this.metrics = registry;
    collectDefaultMetrics({ register: registry });
    registerUsageMetrics(registry, usage);
    new Gauge({
      name: 'chat_streams_open',
      help: 'Streamed chat answers open right now (a stalled client holds one until the stall timeout)',
      registers: [registry],
      collect() {
        this.set(streamsOpen());
      },
    });
    new Gauge({
      name: 'offline_pool_tasks',
      help:
        'Token counts, offline model calls and history work (compaction plans, history token counts) run since start, ' +
        'by operation and thread: worker (a pooled worker thread) or inline (small inputs, on the event loop)',
      labelNames: ['op', 'thread'],
      registers: [registry],
      collect() {
        for (const [op, counts] of offlinePoolStats()) {
          this.set({ op, thread: 'worker' }, counts.worker);
          this.set({ op, thread: 'inline' }, counts.inline);
        }
      },
    });
    const router = gateway.router;
    new Gauge({
      name: 'model_deployment_tries',
      help: 'Tries of models with deployments or fallbacks since start, by deployment and outcome (completed, failed)',
      labelNames: ['deployment', 'outcome'],
      registers: [registry],
      collect() {
        for (const [deployment, counts] of router.tries) {
          this.set({ deployment, outcome: 'completed' }, counts.completed);
          this.set({ deployment, outcome: 'failed' }, counts.failed);
        }
      },
    });
    new Gauge({
      name: 'model_deployment_cooling',
      help: 'Whether a deployment is cooling down after failures (1) or healthy (0)',
      labelNames: ['deployment'],
      registers: [registry],
      collect() {
        for (const state of router.states())
          this.set({ deployment: state.deployment }, state.state === 'cooling' ? 1 : 0);
      },
    });
    this.collectProjections = registerProjectionMetrics(registry, {
      head: () => this.queries.execute(new GetLogHead()),
      runner,
      health: () => this.health(),
    });
  }

  private readonly collectProjections: () => Promise<void>;

  /** The sandbox's availability probe runs while the projections catch up: the first /health does not wait for it. */
  onApplicationBootstrap(): void {
    void this.sandbox?.availability().catch(() => undefined);
  }

  markReady(): void {
    this.ready = true;
  }

  private health() {
    return this.queries.execute(new GetProjectionHealth());
  }

  @Get('health/live')
  live() {
    return { status: 'ok' };
  }

  @ApiRoute({
    tag: 'Operations',
    summary: 'Liveness, readiness and projection lag',
    description:
      "To an admin (API key or session), while the first run's setup link is unused, also `setup`: that link.",
    public: true,
    response: { status: 200, description: 'Ready (503 while starting)' },
  })
  @Get('health')
  async status(@Res({ passthrough: true }) reply: FastifyReply, @Req() request?: FastifyRequest) {
    let projections: Awaited<ReturnType<OperationsController['health']>> = [];
    let storesReachable = true;
    try {
      projections = await this.health();
    } catch {
      storesReachable = false;
    }
    const failing = projections.filter((p) => p.state === 'failed').map((p) => p.name);
    const ready = this.ready && storesReachable;
    void reply.status(ready ? 200 : 503);
    return {
      status: !ready ? 'starting' : failing.length > 0 ? 'degraded' : 'ok',
      version: PLATFORM_VERSION,
      live: true,
      ready,
      failing,
      projections,
      // Code execution is optional: a deployment without a sandbox still serves everything else.
      codeExecution: this.sandbox
        ? await this.sandbox.availability()
        : { available: false, reason: 'not configured' },
      // The upstreams of models with deployments or fallbacks, as this process's calls found them.
      ...this.deploymentStates(),
      ...(await this.setupFor(request)),
    };
  }

  private deploymentStates() {
    const deployments = this.gateway.router.states();
    return deployments.length > 0 ? { deployments } : {};
  }

  /** The first run's setup link, for an admin only: whoever holds it creates an admin account. */
  private async setupFor(request: FastifyRequest | undefined) {
    const setup = await this.bootstrap.pendingSetupLink();
    if (!setup || !request || !(await this.guard.isAdmin(request))) return {};
    return { setup: { link: setup.link, expiresAt: setup.expiresAt } };
  }

  @Get('health/ready')
  async readiness(@Res({ passthrough: true }) reply: FastifyReply) {
    return this.status(reply);
  }

  @ApiRoute({
    tag: 'Operations',
    summary: 'Prometheus metrics',
    public: true,
    response: { status: 200, description: 'Text exposition format' },
  })
  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async prometheus(): Promise<string> {
    await this.collectProjections().catch(() => undefined);
    return this.metrics.metrics();
  }

  @Get('api/v1/core/openapi.json')
  openapi() {
    return this.openApi();
  }

  @Get('api/v1/core/docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs(@Res({ passthrough: true }) reply: FastifyReply) {
    docsHeaders(reply);
    return DOCS_PAGE;
  }

  @Get('api/v1/core/docs/:asset')
  docsAsset(@Param('asset') asset: string, @Res({ passthrough: true }) reply: FastifyReply) {
    docsHeaders(reply);
    if (asset === 'init.js') {
      void reply.type('application/javascript; charset=utf-8');
      return DOCS_INIT;
    }
    const type = DOC_ASSETS.get(asset);
    if (!type) throw new NotFoundError('Docs asset', asset);
    void reply.type(type).header('cache-control', 'public, max-age=86400');
    return readFileSync(join(SWAGGER_UI_DIR, asset));
  }
}
