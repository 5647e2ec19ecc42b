// One error envelope on every surface: { error: { type, code, message, param? } }. Domain errors map by kind; the
// framework's own errors (unknown route, bad JSON, too large) map to 4xx; anything unexpected is logged and answered
// as a 500 without internals, which the tests treat as a bug.
import { Catch, HttpException, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { type ErrorKind, LOGGER, PlatformError } from '#kernel';

export interface ErrorBody {
  readonly error: {
    readonly type: string;
    readonly code: string;
    readonly message: string;
    readonly param?: string;
  };
}

const STATUS: Record<ErrorKind, number> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  cancelled: 499,
  upstream_failed: 502,
  upstream_timeout: 504,
};

const TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  499: 'cancelled_error',
  502: 'upstream_error',
  503: 'service_unavailable_error',
  504: 'timeout_error',
};

export function errorBody(status: number, code: string, message: string, param?: string): ErrorBody {
  return {
    error: {
      type: TYPE[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
      code,
      message,
      ...(param ? { param } : {}),
    },
  };
}

/** OpenAI's error types for the compatible API, so SDK users see the values they handle. */
const COMPAT_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

/**
 * The compatible API's envelope, the chat-completions one: `{ error: { message, type, param, code } }` with `param`
 * always present (null when no field is at fault) and OpenAI's type names.
 */
export function compatErrorBody(status: number, body: ErrorBody) {
  return {
    error: {
      message: body.error.message,
      type: COMPAT_TYPE[status] ?? body.error.type,
      param: body.error.param ?? null,
      code: body.error.code,
    },
  };
}

export const isCompatPath = (url: string): boolean => url.startsWith('/api/compat/');

/** The Anthropic Messages route of the compatible API answers errors in Anthropic's shape. */
export const isAnthropicPath = (url: string): boolean =>
  url === '/api/compat/v1/messages' || url.startsWith('/api/compat/v1/messages?');

/** Anthropic's error types by status, which its SDKs map to their error classes (529 is `overloaded_error`). */
const ANTHROPIC_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/**
 * Anthropic's envelope, `{ type: 'error', error: { type, message } }`, on the Messages route; every other 4xx is
 * `invalid_request_error` and every 5xx `api_error`.
 */
export function anthropicErrorBody(status: number, body: ErrorBody) {
  return {
    type: 'error',
    error: {
      type:
        body.error.code === 'upstream_overloaded'
          ? 'overloaded_error'
          : (ANTHROPIC_TYPE[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')),
      message: body.error.message,
    },
  };
}

/** The body of an error on a route: Anthropic's shape on the Messages route, the chat-completions one elsewhere. */
export function compatSurfaceErrorBody(url: string, status: number, body: ErrorBody): unknown {
  if (!isCompatPath(url)) return body;
  return isAnthropicPath(url) ? anthropicErrorBody(status, body) : compatErrorBody(status, body);
}

/** A request's path without its query string, for logs. */
export const pathOf = (url: string): string => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

/** Fastify's own client errors (body parsing, content type, size) carry a statusCode and a FST_ code. */
function fastifyClientError(error: unknown): { status: number; code: string; message: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { statusCode, code, message } = error as { statusCode?: number; code?: string; message?: string };
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return null;
  const known: Record<string, string> = {
    FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
    FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
    FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
    FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_content_length',
    // @fastify/multipart: an uploaded file over the limit is the same condition as an oversized body.
    FST_REQ_FILE_TOO_LARGE: 'body_too_large',
    FST_PARTS_LIMIT: 'invalid_multipart',
    FST_FILES_LIMIT: 'invalid_multipart',
    FST_FIELDS_LIMIT: 'invalid_multipart',
    FST_PROTO_VIOLATION: 'invalid_multipart',
    FST_INVALID_MULTIPART_CONTENT_TYPE: 'invalid_multipart',
  };
  const mapped = code ? known[code] : undefined;
  if (!mapped && statusCode === 400 && message?.includes('JSON'))
    return { status: 400, code: 'invalid_json', message: 'request body is not valid JSON' };
  return {
    status: statusCode,
    code: mapped ?? 'invalid_request',
    message: mapped === 'invalid_json' ? 'request body is not valid JSON' : (message ?? 'bad request'),
  };
}

export function toErrorResponse(exception: unknown): { status: number; body: ErrorBody } | null {
  if (exception instanceof PlatformError) {
    const status = STATUS[exception.kind];
    return { status, body: errorBody(status, exception.code, exception.message, exception.param) };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    // Fastify's body-parser errors reach here wrapped by Nest; keep the cause recognisable.
    const wrapped =
      fastifyClientError(exception.cause) ??
      (status === 400 && /JSON/.test(exception.message)
        ? fastifyClientError({ statusCode: 400, message: 'JSON' })
        : null);
    if (wrapped)
      return { status: wrapped.status, body: errorBody(wrapped.status, wrapped.code, wrapped.message) };
    const code =
      status === 404 ? 'route_not_found' : status === 405 ? 'method_not_allowed' : 'invalid_request';
    return { status, body: errorBody(status, code, status === 404 ? 'no such route' : exception.message) };
  }
  const client = fastifyClientError(exception);
  return client
    ? { status: client.status, body: errorBody(client.status, client.code, client.message) }
    : null;
}

@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const known = toErrorResponse(exception);
    if (known) {
      if (reply.sent || reply.raw.headersSent) return;
      if (exception instanceof PlatformError) void reply.headers(exception.headers);
      void reply.status(known.status).send(compatSurfaceErrorBody(request.url, known.status, known.body));
      return;
    }
    // The path only: a query string can carry a key (`?api_key=…`).
    this.logger.error(
      { err: exception, method: request.method, path: pathOf(request.url) },
      'unhandled error',
    );
    if (reply.sent || reply.raw.headersSent) return;
    const body = errorBody(500, 'internal_error', 'internal error; it has been logged');
    void reply.status(500).send(compatSurfaceErrorBody(request.url, 500, body));
  }
}
