// The bridge's transport: one JSON request over node:http(s), with the platform's bearer token, a correlation id on
// every request (`x-request-id`, also on errors), and a headers timeout of 60 minutes (long generations answer late).
// Errors carry the platform's envelope: status, type, code, message, param.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** How long the platform may take to send its response headers (spec, Limits: bridge SDK transport). */
export const HEADERS_TIMEOUT_MS = 60 * 60 * 1000;

/** An error the platform answered (its envelope), or a transport failure (`status` 0). */
export class BridgeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: string,
    readonly correlationId: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** Thrown, before any request, when a standalone bridge is asked for something that needs an Agent. */
export class StandaloneScopeError extends BridgeError {
  constructor(operation: string) {
    super(
      0,
      'standalone_scope',
      `${operation} needs an Agent: this bridge was created without an agentId (standalone scope)`,
      'invalid_request_error',
      '',
    );
    this.name = 'StandaloneScopeError';
  }
}

export interface TransportOptions {
  readonly token: string;
  readonly serverUrl: string;
  readonly headersTimeoutMs?: number;
}

export class Transport {
  private readonly base: URL;

  constructor(private readonly options: TransportOptions) {
    this.base = new URL(options.serverUrl.endsWith('/') ? options.serverUrl : `${options.serverUrl}/`);
  }

  /** `path` is relative to the bridge's base path, `/api/v1/bridge/`. */
  call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const url = new URL(`api/v1/bridge/${path}`, this.base);
    const correlationId = randomUUID();
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const timeoutMs = this.options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
      const req = send(
        url,
        {
          method,
          headers: {
            authorization: `Bearer ${this.options.token}`,
            accept: 'application/json',
            'x-request-id': correlationId,
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
              : {}),
          },
        },
        (response) => {
          clearTimeout(timer);
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(transportError(error, correlationId)));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = response.statusCode ?? 0;
            const parsed = parseJson(text);
            if (status >= 200 && status < 300) return resolve(parsed as T);
            const error = (parsed as { error?: Record<string, unknown> } | null)?.error ?? {};
            reject(
              new BridgeError(
                status,
                typeof error.code === 'string' ? error.code : `http_${status}`,
                typeof error.message === 'string' ? error.message : `the platform answered ${status}`,
                typeof error.type === 'string' ? error.type : 'api_error',
                correlationId,
                typeof error.param === 'string' ? error.param : undefined,
              ),
            );
          });
        },
      );
      const timer = setTimeout(
        () => req.destroy(new Error(`no response headers within ${timeoutMs} ms`)),
        timeoutMs,
      );
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(transportError(error, correlationId));
      });
      req.end(payload);
    });
  }
}

const transportError = (error: Error, correlationId: string) =>
  new BridgeError(0, 'transport_failed', error.message, 'transport_error', correlationId);

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
