// Builds and starts the api: Fastify, the Nest application, projections (in embedded mode), the admin bootstrap,
// then listens. Used by main.ts and by the end-to-end tests, which start it on a random port with their own DATA_DIR.
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { Type } from '@nestjs/common';
import { DiscoveryService, NestFactory } from '@nestjs/core';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type {
  FastifyError,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
  RawServerDefault,
} from 'fastify';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { tracingOn, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { ProjectionRunner, ProjectionWaiter, PROJECTORS, type Projector } from '#eventsourcing';
import { createLogger, PinoNestLogger } from '#infrastructure';
import { AdminBootstrap } from '#identity/admin-bootstrap';
import { AppProxyRoutes } from '#apps';
import { DEFAULT_BODY_LIMIT_BYTES, documentedPath, errorBody, routeBodyLimits, routeDocs } from '#http';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { SummaryIndexWorker } from '#knowledge/summary/summary-index.worker';
import { StoredResponseSweeper } from '#model-gateway';
import { ApiModule } from './app.module.js';
import { OperationsController } from './operations.controller.js';
import { instrumentHttp } from './http-metrics.js';
import { traceHttp } from './http-tracing.js';
import { acceptsOnSeveralSockets, openExtraAcceptSockets, refuseTakenPort } from './accept-sockets.js';

/** The code of the refusal of an HTTP/1.1 request without `Host` (see missingHost). */
const MISSING_HOST = 'ERR_MISSING_HOST';

const CLIENT_ERRORS: Record<string, readonly [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'the request line and headers are over 16 KB'],
  [MISSING_HOST]: [400, 'missing_host', 'an HTTP/1.1 request must carry a Host header'],
};

/** Writes an enveloped error on a socket whose request Node could not parse (or refuses), then closes it. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'malformed_request',
    'the request is not valid HTTP',
  ];
  const body = JSON.stringify(errorBody(status, code, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Node answers an HTTP/1.1 request without `Host` with a bare 400 of its own, without calling the `clientError`
 * handler (`requireHostHeader`). The server is created without that check, and the request goes to the same handler
 * as every other request Node's parser refuses, so its answer carries the envelope too.
 */
const missingHost = (request: IncomingMessage): boolean =>
  request.httpVersion === '1.1' && request.headers.host === undefined;
/** Largest uploaded file (a Knowledge document). */
export const UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;

/** Fastify's own dependencies, required from where Fastify is installed. */
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
type SchemaCompilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type CompilerFactory = (...args: unknown[]) => unknown;
const onFirstUse = (pkg: string): CompilerFactory => {
  let build: CompilerFactory | undefined;
  return (...args) => (build ??= (fastifyRequire(pkg) as () => CompilerFactory)())(...args);
};

/**
 * Fastify's JSON Schema compilers (ajv and fast-json-stringify, 113 modules) as Fastify builds them by default, but
 * required when a route first declares a Fastify schema instead of when Fastify is created: no route of the api does
 * (bodies are checked with zod), so a start does not load them.
 */
const schemaCompilersOnFirstUse = {
  buildValidator: onFirstUse('@fastify/ajv-compiler'),
  buildSerializer: onFirstUse('@fastify/fast-json-stringify-compiler'),
} as SchemaCompilers;

// Over 100 lines on purpose: the api's start-up in order (config, stores, HTTP hooks, routes, readiness), one
// sequence read top to bottom.
export async function createApi(
  config: PlatformConfig,
  logger: Logger = createLogger(config),
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    schemaController: { compilersFactory: schemaCompilersOnFirstUse },
    routerOptions: { maxParamLength: 200 },
    // Errors the router raises before Nest sees the request (bad URL encoding, over-long ids) get the same envelope.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const status =
        error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
      const code = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'path_too_long' : 'invalid_url';
      void reply
        .status(status)
        .send(
          errorBody(status, code, status === 414 ? 'a path segment is too long' : 'the URL is not valid'),
        );
    },
    logger: false,
    return503OnClosing: true,
    // A client has this long to send its request line, headers and body (1 byte a second held a connection for
    // minutes); answering, streaming included, is not bounded by it.
    requestTimeout: config.requestTimeoutMs,
    // Node checks request timeouts on an interval (30 s by default): check every second so a slow sender is cut on
    // time.
    serverFactory: (handler: RequestListener) => {
      const server = createServer(
        {
          requestTimeout: config.requestTimeoutMs,
          headersTimeout: config.requestTimeoutMs,
          connectionsCheckingInterval: 1000,
          requireHostHeader: false,
        },
        (request, response) => {
          if (!missingHost(request)) return handler(request, response);
          const error: NodeJS.ErrnoException = new Error('missing Host header');
          error.code = MISSING_HOST;
          answerClientError(error, request.socket);
        },
      );
      return server;
    },
    // Requests Node's parser refuses before any route sees them (malformed HTTP, headers over 16 KB, a request not
    // received in time) get the envelope too, written on the socket.
    clientErrorHandler: answerClientError,
  });
  const metrics = new Registry();
  const app = await NestFactory.create<NestFastifyApplication>(
    ApiModule.forRoot(config, logger, metrics),
    adapter,
    {
      logger: new PinoNestLogger(logger),
      bufferLogs: false,
    },
  );
  // The platform's cookies (the session, the single sign-on's binding): request.cookies and reply.setCookie.
  await app.register(fastifyCookie);
  // Multipart uploads (Knowledge documents): one file per request, bounded; fields before the file.
  await app.register(fastifyMultipart, {
    limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
  });
  const fastify = app.getHttpAdapter().getInstance();
  // The App proxy (/app/{id}/...): the Apps context's own raw routes, bodies streamed through unparsed.
  await app.get(AppProxyRoutes).registerOn(fastify);
  // A body declared as JSON but empty (a DELETE sent with `content-type: application/json` by many clients) is no
  // body, not invalid JSON; anything else goes to Fastify's own parser (prototype poisoning refused).
  const json = fastify.getDefaultJsonParser('error', 'error');
  app.useBodyParser<RawServerDefault>(
    'application/json',
    { bodyLimit: DEFAULT_BODY_LIMIT_BYTES },
    (request, body, done) => {
      if (body.length === 0) done(null, undefined);
      else void json(request, body.toString('utf8'), done);
    },
  );
  // Routes that take more than the default body (a conversation turn with its attachment) say so in their
  // documentation (`bodyLimitBytes`); the same figure is applied here as the route is registered.
  const limits = routeBodyLimits(
    routeDocs(
      app
        .get(DiscoveryService)
        .getControllers()
        .map((wrapper) => wrapper.metatype as Type | null)
        .filter((controller): controller is Type => controller !== null),
    ),
  );
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const limit = limits.get(`${method} ${documentedPath(route.url)}`);
      if (limit !== undefined) route.bodyLimit = limit;
    }
  });
  instrumentHttp(fastify, metrics);
  // Before the request log line's hook, so that line is written inside the request's span.
  if (tracingOn()) traceHttp(fastify);
  // Callback-style hooks: an async hook costs a promise per request on every route.
  fastify.addHook('onRequest', (request, reply, done) => {
    const id = request.headers['x-request-id'];
    if (typeof id === 'string' && id.length <= 128) void reply.header('x-request-id', id);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    // Method, route and status only: never headers or bodies, which may carry keys.
    if (logger.isLevelEnabled('info'))
      logger.info(
        {
          method: request.method,
          route: request.routeOptions.url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    done();
  });
  app.enableShutdownHooks();
  await app.init();

  if (config.runProjections) {
    const runner = app.get(ProjectionRunner);
    runner.start();
    await runner.caughtUp(30_000);
    // Knowledge ingestion works where the projections run (its to-do list is a projection).
    app.get(IngestionWorker).start();
    app.get(SummaryIndexWorker).start();
    app.get(StoredResponseSweeper).start();
  } else {
    // Scaled out: the worker runs the projectors; wait (bounded) until their live generations have reached the log head.
    const head = await app.get<EventStore>(EVENT_STORE).headPosition();
    await app.get(ProjectionWaiter).waitFor(
      app.get<Projector[]>(PROJECTORS).map((p) => p.name),
      head,
      30_000,
    );
  }
  await app.get(AdminBootstrap).run();
  app.get(OperationsController).markReady();
  return app;
}

const LISTEN_BACKLOG = 4096;

export async function startApi(config: PlatformConfig, logger?: Logger): Promise<NestFastifyApplication> {
  const app = await createApi(config, logger);
  // Connections not yet accepted queue in the kernel up to the backlog; past it a new connection's SYN is dropped and
  // retried after 1 s, 3 s, 7 s: a burst of clients (a thousand streams opening at once) would wait seconds for
  // nothing. Node's default is 511; the kernel caps what is asked at net.core.somaxconn.
  if (!acceptsOnSeveralSockets()) {
    await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
    return app;
  }
  await refuseTakenPort(config.host, config.port);
  let closeExtras = () => {};
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preClose', (done) => {
      closeExtras();
      done();
    });
  // Node's listen takes `reusePort`; Fastify passes its options on as they are, though its type does not name it.
  const shared = { port: config.port, host: config.host, backlog: LISTEN_BACKLOG, reusePort: true };
  await app.listen(shared);
  closeExtras = await openExtraAcceptSockets(app.getHttpServer(), LISTEN_BACKLOG);
  return app;
}
