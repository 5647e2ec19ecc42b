// The HTTP skeleton a fake vendor upstream stands on: node:http on 127.0.0.1 (random port), each request read whole,
// routed, checked for the vendor's authentication, recorded in the matrix's neutral terms and answered from the
// current script. The vendor's own file says only its wire format.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeVendorUpstream, VendorRequestView, VendorScript } from './vendor-upstream.js';

export interface VendorExchange {
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** The body as JSON (undefined when empty or not JSON). */
  readonly body: unknown;
  /** What `route` named it. */
  readonly route: string;
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Server-sent events, written one by one, then the end of the response. */
  sse(events: readonly { readonly event?: string; readonly data: string }[]): void;
  /** Raw pieces (NDJSON lines, binary frames) with a content type, then the end. */
  pieces(contentType: string, pieces: readonly (string | Uint8Array)[]): void;
}

export interface VendorServerOptions<S extends VendorScript> {
  /** The route's name, or undefined for a path the vendor does not have (404). */
  route(exchange: Omit<VendorExchange, 'route'>): string | undefined;
  authorized(exchange: VendorExchange): boolean;
  unauthorized(exchange: VendorExchange): void;
  view(exchange: VendorExchange): VendorRequestView;
  answer(exchange: VendorExchange, script: S, request: VendorRequestView): void | Promise<void>;
  /** The base URL a models file gives, from the server's origin. */
  baseUrl(origin: string): string;
}

export async function startVendorServer<S extends VendorScript>(
  options: VendorServerOptions<S>,
): Promise<FakeVendorUpstream> {
  const requests: VendorRequestView[] = [];
  const sockets = new Set<Socket>();
  let current = {} as S;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let body: unknown;
      try {
        body = rawBody.length ? JSON.parse(rawBody.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      const base = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        rawBody,
        body,
        json,
        sse: (events: readonly { event?: string; data: string }[]) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          for (const { event, data } of events)
            res.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`);
          res.end();
        },
        pieces: (contentType: string, pieces: readonly (string | Uint8Array)[]) => {
          res.writeHead(200, { 'content-type': contentType });
          for (const piece of pieces) res.write(piece);
          res.end();
        },
      };
      const route = options.route(base);
      if (!route) return json(404, { error: { message: `no route ${base.method} ${base.path}` } });
      const exchange: VendorExchange = { ...base, route };
      if (!options.authorized(exchange)) return options.unauthorized(exchange);
      const view = options.view(exchange);
      requests.push(view);
      Promise.resolve(options.answer(exchange, current, view)).catch((error: unknown) => {
        if (!res.headersSent) json(500, { error: { message: String(error) } });
        else res.destroy();
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: options.baseUrl(`http://127.0.0.1:${port}`),
    requests,
    script: (script) => {
      current = script as S;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
