// The plumbing the fake vendor upstreams share: a node:http server on 127.0.0.1 (random port) that hands each request
// (its JSON body read) to the vendor's handler and closes every socket on close, and the neutral answer a script
// gives (its text, the default echo, token counts, a text split into stream pieces).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { VendorScript } from './vendor-upstream.js';

export interface VendorCall {
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body; undefined when empty or not JSON. */
  readonly body: unknown;
}

export interface VendorServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  close(): Promise<void>;
}

/** Starts a server that answers every request with `handle`; a handler that throws answers a plain 500. */
export async function startVendorServer(
  handle: (call: VendorCall, response: ServerResponse) => Promise<void> | void,
): Promise<VendorServer> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const url = new URL(request.url ?? '/', 'http://fake');
      const call = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body,
      };
      Promise.resolve(handle(call, response)).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
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
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** What a script answers: its text (default `Echo: <last user text>`) and token counts (default: words). */
export function scriptedAnswer(script: VendorScript, userTexts: readonly string[], promptText: string) {
  const text = script.text ?? `Echo: ${userTexts.at(-1) ?? ''}`;
  const output = script.toolCalls?.length ? JSON.stringify(script.toolCalls).length / 4 : wordCount(text);
  return {
    text,
    usage: {
      input: script.usage?.input ?? Math.max(1, wordCount(promptText)),
      output: script.usage?.output ?? Math.max(1, Math.round(output)),
      cacheRead: script.usage?.cacheRead ?? 0,
    },
  };
}

/** A text as stream pieces: one per word, the spaces kept, so joining them gives the text back. */
export const streamPieces = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [''];

/** An image's media type from its first bytes (Ollama sends images without one). */
export function sniffMediaType(base64: string): string {
  const head = Buffer.from(base64.slice(0, 16), 'base64');
  if (head[0] === 0x89 && head[1] === 0x50) return 'image/png';
  if (head[0] === 0xff && head[1] === 0xd8) return 'image/jpeg';
  if (head.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  if (head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return 'application/octet-stream';
}

/** A deterministic vector for a text (8 dimensions), so a test can tell inputs apart. */
export function fakeVector(text: string): number[] {
  return Array.from({ length: 8 }, (_, i) => {
    let hash = 17 + i;
    for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) % 1009;
    return hash / 1009;
  });
}
