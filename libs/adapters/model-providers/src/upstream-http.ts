// HTTP to model upstreams over undici (Node's own client) with keep-alive pools, shared by every provider type: a
// request with the model's timeouts (`headersTimeout` until the answer starts, `bodyTimeout` between two pieces, so a
// long stream is never cut while it flows), failures mapped to UpstreamError (status, Retry-After, and the reason the
// vendor's error body gives, read by the provider), and the bodies read as JSON, server-sent events, lines (NDJSON) or
// raw bytes. The upstream's own error message never leaves here: it may quote keys.
import { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { lazyModule, traceHeaders } from '#kernel';
import type { ModelConfig } from './model.js';
import { bytesOf } from './openai/request-body.js';
import { reasonOfStatus, retryAfterMs, UpstreamError, type UpstreamReason } from './provider.port.js';
import { BodyItems, type Framing } from './body-items.js';
import { destroy, finishReading, readLimited } from './upstream-body.js';

const undici = lazyModule<typeof import('undici')>('undici');

/**
 * Reads why an upstream refused from its status and error body (at most 64 KB of it); undefined: the status says. With
 * a `detail` (our own words, never the vendor's) the client is told more than the reason (Azure's content filter).
 */
export type ErrorReasonReader = (
  status: number,
  body: string,
  /** The answer's headers (Bedrock names the error's type in `x-amzn-errortype`). */
  headers: Readonly<Record<string, string | string[] | undefined>>,
) => UpstreamReason | { readonly reason: UpstreamReason; readonly detail: string } | undefined;

export interface UpstreamRequest {
  /** Appended to the model's base URL (may carry a query string). */
  readonly path: string;
  readonly method?: 'POST' | 'GET';
  /** The body: one string or buffer, or pieces sent one after the other (their length said up front). */
  readonly body?: string | Buffer | readonly Buffer[];
  readonly headers?: Readonly<Record<string, string>>;
  /** Reads why it refused (context too long, overloaded) from the vendor's error body. */
  readonly reasonOf?: ErrorReasonReader;
  /** How long the error body asks to wait, for vendors that say it there rather than in Retry-After (Google). */
  readonly retryAfterOf?: (body: string) => number | undefined;
}

/** Where a request goes, as undici's `request(url)` would split it (origin, path with query). */
interface Target {
  readonly origin: string;
  readonly path: string;
}

const ERROR_BODY_LIMIT = 64 * 1024;

/** What a stream's reader answers for the event that ends it (OpenAI's `data: [DONE]`). */
export const STREAM_END: unique symbol = Symbol('stream end');

const isPieces = (body: UpstreamRequest['body']): body is readonly Buffer[] => Array.isArray(body);

export class UpstreamHttp {
  private pool: Agent | undefined;
  /** Parsed once per base URL and path: `request(url)` parsed the URL (WHATWG) on every call. */
  private readonly targets = new Map<string, Target>();

  constructor(private readonly upstreamKey: (model: ModelConfig) => string | undefined) {}

  private get agent(): Agent {
    // A stream holds its connection for as long as the model writes (seconds to minutes): a cap per upstream would
    // queue the streams past it behind whole answers, so the pool opens one per call in flight.
    return (this.pool ??= new (undici().Agent)({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
    }));
  }

  /** The model's upstream key; throws when its variable is named and not set (the call cannot succeed). */
  key(model: ModelConfig): string | undefined {
    const key = this.upstreamKey(model);
    if (model.apiKeyEnv && !key)
      throw new UpstreamError(
        'unavailable',
        `model '${model.key}' has no upstream key (${model.apiKeyEnv} is not set)`,
      );
    return key;
  }

  /** Sends the request; an answer of 400 or more is read for its reason and thrown as an UpstreamError. */
  async send(
    model: ModelConfig,
    request: UpstreamRequest,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    try {
      const { origin, path } = this.target(model.baseUrl!, request.path);
      const body = request.body;
      const response = await this.agent.request({
        origin,
        path,
        method: request.method ?? 'POST',
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...request.headers,
          // The active span's W3C trace context (the model attempt's), when tracing is on.
          ...traceHeaders(),
          // Pieces are streamed one after the other: their length is said up front (else they would go chunked).
          ...(isPieces(body) ? { 'content-length': String(bytesOf(body)) } : {}),
        },
        body: isPieces(body) ? Readable.from(body, { objectMode: false }) : body,
        signal,
        headersTimeout: model.timeoutMs,
        bodyTimeout: model.timeoutMs,
      });
      if (response.statusCode >= 400) {
        const text = await readLimited(response.body, ERROR_BODY_LIMIT).catch(() => '');
        const status = response.statusCode;
        const read = request.reasonOf?.(status, text, response.headers);
        const reason = typeof read === 'object' ? read.reason : read;
        throw new UpstreamError(
          'rejected',
          `upstream answered ${status} for model '${model.key}'`,
          status,
          // Azure OpenAI (and OpenAI) say the wait in milliseconds too: the finer one wins.
          retryAfterMs(response.headers['retry-after-ms'], undefined, 'ms') ??
            retryAfterMs(response.headers['retry-after']) ??
            request.retryAfterOf?.(text),
          reason ?? reasonOfStatus(status),
          typeof read === 'object' ? read.detail : undefined,
        );
      }
      return response;
    } catch (error) {
      throw this.mapError(model, error, signal);
    }
  }

  /** The whole body as JSON. */
  async json<T>(model: ModelConfig, response: Dispatcher.ResponseData, signal: AbortSignal): Promise<T> {
    return (await this.read(model, () => response.body.json(), signal)) as T;
  }

  /**
   * The body's server-sent events as they arrive; the body ends (and the upstream call with it) when the loop stops.
   * `pieces` itself, not a generator around it: every event of a stream passed through each layer (a promise and a
   * microtask per layer per event), and a stream's events are the gateway's hottest path.
   */
  events(
    model: ModelConfig,
    response: Dispatcher.ResponseData,
    signal: AbortSignal,
  ): AsyncIterable<EventSourceMessage> {
    return this.readEvents(
      model,
      () => response,
      signal,
      (message) => message,
    );
  }

  /**
   * A streamed call's events, each read into what the caller streams by `read` inside the loop that reads the body:
   * a generator of the caller's own around `events()` cost a promise and a microtask more per event. `open` sends the
   * request when the stream is first pulled (a stream nobody reads calls nobody); `read` answers a piece, undefined
   * (nothing to pass on) or STREAM_END (the stream's own end: nothing after it is read, and the connection is kept).
   */
  readEvents<T>(
    model: ModelConfig,
    open: () => Dispatcher.ResponseData | Promise<Dispatcher.ResponseData>,
    signal: AbortSignal,
    read: (message: EventSourceMessage) => T | undefined | typeof STREAM_END,
  ): AsyncIterable<T> {
    const items: T[] = [];
    const framing: Framing<T> = {
      split(piece: string): T[] {
        parser.feed(piece);
        return items.splice(0);
      },
    };
    const parser = createParser({
      onEvent: (message) => {
        if (framing.stop) return;
        // What `read` throws ends the stream once the events before it are passed on, as a generator would.
        try {
          const item = read(message);
          if (item === STREAM_END) framing.stop = { end: true };
          else if (item !== undefined) items.push(item);
        } catch (error) {
          framing.stop = { end: false, error };
        }
      },
    });
    return this.pieces(model, open, signal, framing);
  }

  /** The body's lines (NDJSON) as they arrive, empty lines skipped. */
  lines(model: ModelConfig, response: Dispatcher.ResponseData, signal: AbortSignal): AsyncIterable<string> {
    let rest = '';
    return this.pieces(model, () => response, signal, {
      split: (piece) => {
        const lines = (rest + piece).split('\n');
        rest = lines.pop() ?? '';
        return lines.filter((line) => line.trim() !== '');
      },
      end: () => (rest.trim() ? [rest] : []),
    });
  }

  /** The body's bytes as they arrive (binary framings such as AWS event streams). */
  async *bytes(
    model: ModelConfig,
    response: Dispatcher.ResponseData,
    signal: AbortSignal,
  ): AsyncIterable<Buffer> {
    const pieces = response.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let failed = false;
    try {
      for (;;) {
        // Failures are mapped by the catch below.
        const piece = await pieces.next();
        if (piece.done) break;
        yield piece.value;
      }
      if (signal.aborted) throw signal.reason;
    } catch (error) {
      failed = true;
      throw this.mapError(model, error, signal);
    } finally {
      if (failed || signal.aborted) destroy(response.body);
      else finishReading(response.body, pieces);
    }
  }

  private pieces<T>(
    model: ModelConfig,
    open: () => Dispatcher.ResponseData | Promise<Dispatcher.ResponseData>,
    signal: AbortSignal,
    framing: Framing<T>,
  ): AsyncIterable<T> {
    return new BodyItems(open, framing, signal, (error) => this.mapError(model, error, signal));
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  /** Awaits one read of the body, mapping its failures. */
  async read<T>(model: ModelConfig, next: () => Promise<T>, signal: AbortSignal): Promise<T> {
    try {
      return await next();
    } catch (error) {
      throw this.mapError(model, error, signal);
    }
  }

  mapError(model: ModelConfig, error: unknown, signal: AbortSignal): unknown {
    if (error instanceof UpstreamError) return error;
    // The caller's abort wins: the client went away, whatever the upstream did.
    if (signal.aborted) return signal.reason ?? error;
    const code = (error as { code?: string } | null)?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
      return new UpstreamError('timeout', `model '${model.key}' did not answer within ${model.timeoutMs} ms`);
    if (error instanceof SyntaxError)
      return new UpstreamError('rejected', `upstream of model '${model.key}' answered malformed JSON`);
    return new UpstreamError('unavailable', `upstream of model '${model.key}' is unreachable`);
  }

  private target(baseUrl: string, path: string): Target {
    const key = `${baseUrl}\u0000${path}`;
    let target = this.targets.get(key);
    if (!target) {
      const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new TypeError(`the URL must start with http: or https: (${url.protocol})`);
      target = { origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname };
      if (this.targets.size >= 1000) this.targets.clear();
      this.targets.set(key, target);
    }
    return target;
  }
}

/** An error body's JSON (`{}` when it is not JSON). */
export function errorJson(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
