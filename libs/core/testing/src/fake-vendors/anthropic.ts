// A fake Anthropic upstream: node:http on 127.0.0.1 answering `POST /v1/messages` as Anthropic's API does (its key and
// `anthropic-version` header required, the message or its server-sent events, usage with cache reads
// and writes, the error envelope with its statuses, 529 overloaded included, and Retry-After on a 429); the wire
// itself is in anthropic-wire.ts. `@anthropic-ai/sdk` pointed at it parses every answer (anthropic.int.spec.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeVendorUpstream, VendorRequestView, VendorScript } from './vendor-upstream.js';
import {
  answerOf,
  errorEnvelope,
  eventsOf,
  FAILURES,
  InvalidRequest,
  messageOf,
  viewOf,
} from './anthropic-wire.js';

export interface FakeAnthropicUpstream extends FakeVendorUpstream {
  /** The next streamed answers send this `error` event after their first pieces (`overloaded_error`, `api_error`). */
  failMidStream(errorType: string | undefined): void;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
};

export const startFakeAnthropic = async (options: {
  readonly apiKey: string;
}): Promise<FakeAnthropicUpstream> => {
  const requests: VendorRequestView[] = [];
  let script: VendorScript = {};
  let midStream: string | undefined;
  let sequence = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_fake${String(++sequence).padStart(6, '0')}`;
    const fail = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
      send(res, status, errorEnvelope(type, message, requestId), { 'request-id': requestId, ...headers });
    const raw = await readBody(req);
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/v1/messages')
      return fail(404, 'not_found_error', 'Not Found');
    // The key in `x-api-key` (the API reference) or as a bearer token (what the SDK sends since its 1.x releases).
    const key = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
    if (!key) return fail(401, 'authentication_error', 'x-api-key header is required');
    if (key !== options.apiKey) return fail(401, 'authentication_error', 'invalid x-api-key');
    if (!req.headers['anthropic-version'])
      return fail(400, 'invalid_request_error', 'anthropic-version: header is required');
    let view: VendorRequestView;
    try {
      view = viewOf(JSON.parse(raw) as Record<string, unknown>, req.headers);
    } catch (error) {
      const message =
        error instanceof InvalidRequest ? error.message : 'There was an issue with the JSON body';
      return fail(400, 'invalid_request_error', message);
    }
    requests.push(view);
    if (script.failure) {
      const { status, type, message } = FAILURES[script.failure];
      const retry: Record<string, string> =
        script.failure === 'rate_limit' && script.retryAfterSeconds !== undefined
          ? { 'retry-after': String(script.retryAfterSeconds) }
          : {};
      return fail(status, type, message, retry);
    }
    const answer = answerOf(script, view);
    if (!view.stream) return send(res, 200, messageOf(view.model, answer), { 'request-id': requestId });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId,
    });
    for (const [name, data] of eventsOf(view.model, answer, midStream))
      res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else send(res, 500, errorEnvelope('api_error', 'Internal server error', 'req_fake'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (next) => {
      script = next;
    },
    failMidStream: (errorType) => {
      midStream = errorType;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};
