// Boots the real api in-process on 127.0.0.1 (random port) over its own temporary data directory, and speaks HTTP.
import { channel } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';
import { Writable } from 'node:stream';
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, type PlatformConfig } from '#kernel';
import { createLogger } from '#infrastructure';
import { createApi } from '../../apps/api/src/bootstrap.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestApi {
  readonly url: string;
  readonly config: PlatformConfig;
  readonly app: NestFastifyApplication;
  /** Everything the api logged, as text. */
  logs(): string;
  close(): Promise<void>;
}

export const tempDataDir = (): string => tempDir('agent-platform-');

/** A models file (MODELS_FILE) of these YAML lines, in a fresh temporary directory. */
export function writeModelsFile(lines: readonly string[]): string {
  const path = join(tempDataDir(), 'models.yaml');
  writeFileSync(path, lines.join('\n'));
  return path;
}

export async function startTestApi(env: Record<string, string> = {}): Promise<TestApi> {
  const config = loadConfig({
    DATA_DIR: tempDataDir(),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
  const chunks: string[] = [];
  const logger = createLogger(
    config,
    new Writable({ write: (chunk, _encoding, done) => (chunks.push(String(chunk)), done()) }),
  );
  const app = await createApi(config, logger);
  // PORT given with PUBLIC_URL: a test whose browser follows links the instance builds from PUBLIC_URL.
  await app.listen({ port: Number(env.PORT ?? 0), host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const connections = watchConnections();
  return {
    url: `http://127.0.0.1:${address.port}`,
    config,
    app,
    logs: () => chunks.join(''),
    close: async () => {
      await app.close();
      await connections.closedTo(address.port);
    },
  };
}

/**
 * The TCP connections this test process opens (fetch, SDKs, raw sockets). A response whose body is never read holds
 * its connection paused: it never sees the server close, and keeps the jest worker alive after its last test ("A
 * worker process has failed to exit gracefully"). Closing the api therefore checks that every connection to it has
 * ended, and fails the suite, naming the cause, when one has not.
 */
function watchConnections() {
  const sockets = new Set<Socket>();
  const client = channel('net.client.socket');
  const opened = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  client.subscribe(opened);
  return {
    async closedTo(port: number): Promise<void> {
      client.unsubscribe(opened);
      const open = () => [...sockets].filter((socket) => !socket.destroyed && socket.remotePort === port);
      // Connections the server just closed end within a few event-loop turns; a paused one never does.
      for (let waited = 0; open().length > 0 && waited < 2000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const left = open();
      for (const socket of left) socket.destroy();
      if (left.length > 0)
        throw new Error(
          `${left.length} connection(s) to the api were still open after it closed: a response body was left ` +
            'unread (read it, or cancel it with response.body?.cancel())',
        );
    },
  };
}

export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** A small HTTP client over fetch: JSON in, JSON out, the admin key unless told otherwise. */
export function client(base: string, key: string | null = ADMIN_KEY) {
  const call = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key ? { 'x-api-key': key } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : null) as T,
      headers: response.headers,
    };
  };
  return {
    get: <T = Record<string, unknown>>(path: string, headers?: Record<string, string>) =>
      call<T>('GET', path, undefined, headers),
    post: <T = Record<string, unknown>>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body, headers),
    put: <T = Record<string, unknown>>(path: string, body?: unknown) => call<T>('PUT', path, body),
    patch: <T = Record<string, unknown>>(path: string, body?: unknown) => call<T>('PATCH', path, body),
    delete: <T = Record<string, unknown>>(path: string) => call<T>('DELETE', path),
  };
}

export const CORE = '/api/v1/core';

export const uniqueName = (prefix: string): string => `${prefix} ${Math.random().toString(36).slice(2, 10)}`;

/**
 * A person registered by the admin before anything is granted to them (a key listing no Agent registers its owner):
 * their user id. A key granting an Agent is issued only once its person may use it (a role in its Space).
 */
export async function registeredPerson(base: string, email: string): Promise<string> {
  const reply = await client(base).post<{ ownerUserId: string }>(`${CORE}/api-keys`, {
    name: uniqueName('registers'),
    owner: { email },
    agents: [],
  });
  expect(reply.status).toBe(201);
  return reply.body.ownerUserId;
}
