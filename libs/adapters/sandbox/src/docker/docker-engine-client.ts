// The Docker Engine API client of the Docker sandbox: HTTP over the unix socket or a `tcp://`/`http(s)://` endpoint,
// through undici (already the platform's HTTP client). JSON calls with a bound on each answer, and the exec stream
// (the Engine's multiplexed stdout/stderr frames) read up to a cap and dropped at once past it or on abort.
// A thin transport of our own rather than dockerode, for a measured reason: `npm view dockerode dependencies` lists
// @grpc/grpc-js, @grpc/proto-loader, protobufjs, tar-fs and docker-modem, which brings ssh2 (with its optional native
// `cpu-features` build); the adapter needs nine endpoints, and must cut an exec's stream at the output cap or the
// wall timeout by dropping its connection, which dockerode's modem hides behind its own stream handling. The fake
// Engine spec (`docker-sandbox.int.spec.ts`) is the contract for every request shape here.
import type { Client } from 'undici';
import { lazyModule, ValidationError } from '#kernel';

/** undici, loaded when a Docker sandbox first calls the Engine (a platform without one never loads it). */
const undici = lazyModule<typeof import('undici')>('undici');

const MB = 1024 * 1024;

export type EngineMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A Docker Engine answer that was not the expected one. */
export class DockerApiError extends Error {
  constructor(
    readonly status: number,
    what: string,
    message: string,
  ) {
    super(`Docker Engine: ${what}: ${status} ${message}`.trim());
  }
}

export interface EngineAnswer {
  readonly status: number;
  readonly body: Uint8Array;
}

export interface ExecOutput {
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** Why the client cut the stream, or null when it ended by itself. */
  cut: 'timeout' | 'output' | 'abort' | null;
}

export class DockerEngineClient {
  private readonly origin: string;
  private readonly socketPath: string | undefined;
  private client: Client | undefined;

  /** `unix:///var/run/docker.sock`, `tcp://host:2375` or `http(s)://host:port`; 400 for anything else. */
  constructor(endpoint: string) {
    let origin: string;
    if (endpoint.startsWith('unix://')) {
      this.socketPath = endpoint.slice('unix://'.length);
      origin = 'http://localhost';
    } else if (endpoint.startsWith('tcp://')) {
      origin = `http://${endpoint.slice('tcp://'.length)}`;
    } else if (/^https?:\/\//.test(endpoint)) {
      origin = endpoint;
    } else {
      throw new ValidationError('invalid_docker_endpoint', `Not a Docker endpoint: ${endpoint}`, 'endpoint');
    }
    this.origin = new URL(origin).origin;
  }

  /** Where the Engine is, for messages. */
  get where(): string {
    return this.socketPath ? `unix://${this.socketPath}` : this.origin;
  }

  /** Closes the connections to the Engine. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
  }

  /** One request whose status must be one of `expected` (60 s at most); DockerApiError otherwise. */
  async call(
    method: EngineMethod,
    path: string,
    body: unknown,
    expected: readonly number[],
    what: string,
    /** Extra request headers (an image pull's `X-Registry-Auth`). */
    headers: Readonly<Record<string, string>> = {},
  ): Promise<EngineAnswer> {
    const answer = await this.request(method, path, body, AbortSignal.timeout(60_000), 16 * MB, headers);
    if (!expected.includes(answer.status)) throw new DockerApiError(answer.status, what, this.said(answer));
    return answer;
  }

  /**
   * One request to the Engine: a JSON body, or a tar (`Uint8Array`); an answer of more than `bound` bytes is
   * refused (DockerApiError) as soon as it passes the bound.
   */
  async request(
    method: EngineMethod,
    path: string,
    body: unknown,
    signal: AbortSignal,
    bound = 16 * MB,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<EngineAnswer> {
    this.client ??= this.newClient();
    const raw = body instanceof Uint8Array;
    const response = await this.client.request({
      method,
      path,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'content-type': raw ? 'application/x-tar' : 'application/json' }),
      },
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > bound) {
        response.body.destroy();
        throw new DockerApiError(
          response.statusCode,
          `${method} ${path}`,
          `answer larger than ${bound} bytes`,
        );
      }
      chunks.push(chunk);
    }
    return { status: response.statusCode, body: Buffer.concat(chunks) };
  }

  /** The Engine's message in an answer (its JSON `message`, or the text), at most 300 characters. */
  said(answer: EngineAnswer): string {
    const text = new TextDecoder().decode(answer.body.subarray(0, 600));
    try {
      const message = (JSON.parse(text) as { message?: unknown }).message;
      if (typeof message === 'string') return message.slice(0, 300);
    } catch {
      // not JSON
    }
    return text.trim().slice(0, 300);
  }

  /**
   * Starts an exec and reads its multiplexed output (frames of an 8-byte header: stream 1 stdout or 2 stderr, three
   * zero bytes, the big-endian payload length) up to `cap` bytes of payload; past the cap, or when `signal` aborts,
   * the connection is dropped and the outcome says why (`why()` tells a timeout from an abort).
   */
  async execStart(
    execId: string,
    signal: AbortSignal,
    cap: number,
    why: () => 'timeout' | 'abort' = () => 'abort',
  ): Promise<ExecOutput> {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let taken = 0;
    let truncated = false;
    let cut: ExecOutput['cut'] = null;
    const stop = new AbortController();
    const onAbort = (): void => {
      cut ??= why();
      stop.abort();
    };
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort);
    // The Engine takes the connection over for the stream and closes it at the end: a client of its own.
    const client = this.newClient();
    try {
      if (!stop.signal.aborted) {
        const response = await client.request({
          method: 'POST',
          path: `/exec/${encodeURIComponent(execId)}/start`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Detach: false, Tty: false }),
          signal: stop.signal,
        });
        if (response.statusCode !== 200) {
          const body = await response.body.text().catch(() => '');
          throw new DockerApiError(response.statusCode, 'start an exec', body.slice(0, 300));
        }
        let pending: Buffer = Buffer.alloc(0);
        try {
          for await (const chunk of response.body as AsyncIterable<Buffer>) {
            pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
            while (pending.length >= 8) {
              const length = pending.readUInt32BE(4);
              if (pending.length < 8 + length) break;
              const stream = pending[0];
              const payload = pending.subarray(8, 8 + length);
              pending = pending.subarray(8 + length);
              const into = stream === 2 ? err : out;
              const room = cap - taken;
              if (payload.length > room) {
                into.push(payload.subarray(0, room));
                taken = cap;
                truncated = true;
                cut ??= 'output';
                stop.abort();
                break;
              }
              into.push(payload);
              taken += payload.length;
            }
            if (stop.signal.aborted) break;
          }
        } catch (error) {
          if (!stop.signal.aborted) throw error;
        }
      }
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
      await client.destroy().catch(() => undefined);
    }
    return {
      stdout: Buffer.concat(out).toString('utf8'),
      stderr: Buffer.concat(err).toString('utf8'),
      truncated,
      cut,
    };
  }

  private newClient(): Client {
    return new (undici().Client)(this.origin, this.socketPath ? { socketPath: this.socketPath } : {});
  }
}
