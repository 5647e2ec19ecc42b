// The plumbing every fake vendor shares: a node:http server on 127.0.0.1 (random port) that reads each request's body
// whole, hands it to the vendor's handler, answers 500 when the handler throws (a fake's own bug, shown as such), and
// closes with every open socket destroyed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeRequest {
  readonly method: string;
  /** The path as sent (still URI-encoded), without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface FakeServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startFakeServer(
  handle: (request: FakeRequest, response: ServerResponse) => Promise<void> | void,
): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const [path = '/', query = ''] = (req.url ?? '/').split('?', 2);
      const request = {
        method: req.method ?? 'GET',
        path,
        query: new URLSearchParams(query),
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      Promise.resolve()
        .then(() => handle(request, res))
        .catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`fake vendor failed: ${(error as Error).message}`);
        });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/** The default answer of every fake: `Echo: ` and the last user text. */
export const echo = (userTexts: readonly string[]): string => `Echo: ${userTexts.at(-1) ?? ''}`;

/** A text in a few pieces, as a stream sends it. */
export function pieces(text: string): string[] {
  const words = text.split(/(?<= )/);
  return words.length > 0 ? words : [text];
}

/** A 1×1 PNG (what the image fakes answer). */
export const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
