// `cli mcp connect --oauth`'s side of the authorization code flow: a one-request HTTP listener on 127.0.0.1 (the
// redirect URI of a native app, RFC 8252) that waits for the authorization server to send the person back with the
// code and the state it was given; and, for authorization servers that approve without a person (the MCP
// conformance suite's do), the authorization URL followed by the CLI itself until it reaches that listener.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Loopback {
  readonly redirectUrl: string;
  /** The code of the next redirect whose state is `state`; rejects on an error redirect or a wrong state. */
  code(state: string, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

export const newState = (): string => randomBytes(24).toString('base64url');

export async function openLoopback(): Promise<Loopback> {
  let waiting: ((query: URLSearchParams) => void) | undefined;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
      .end('The MCP server is authorized. You can close this page.');
    waiting?.(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code: (state, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no authorization arrived in time')), timeoutMs);
        waiting = (query) => {
          clearTimeout(timer);
          waiting = undefined;
          const error = query.get('error');
          if (error) return reject(new Error(`the authorization was refused: ${error.slice(0, 100)}`));
          if (query.get('state') !== state)
            return reject(new Error('the authorization came back with another state'));
          const code = query.get('code');
          return code ? resolve(code) : reject(new Error('the authorization came back without a code'));
        };
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Follows the authorization URL's redirects (at most 10) until the loopback listener has answered. */
export async function followAuthorization(authorizationUrl: URL, redirectUrl: string): Promise<void> {
  let next = authorizationUrl.href;
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await fetch(next, { redirect: 'manual' });
    await response.body?.cancel();
    if (next.startsWith(redirectUrl)) return;
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location)
      throw new Error(`the authorization server answered ${response.status} instead of redirecting`);
    next = new URL(location, next).href;
  }
  throw new Error('the authorization server redirected too often');
}
