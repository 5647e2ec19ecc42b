// A URL App on loopback for the tests of the URL App contract (ours to define, so a server written here is the real
// thing): it answers `/meta` with the meta it is given, records every other request (path, headers, body) and lets the
// test answer it.
import { createServer, type IncomingHttpHeaders, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface UrlApp {
  readonly url: string;
  /** Every request but `/meta`, in order. */
  readonly seen: SeenRequest[];
  close(): void;
}

/** A tool-carrying meta the tests share: a read-only `forecast` with an argument schema, a destructive tool at a path of its own. */
export const WEATHER_TOOLS = [
  {
    name: 'forecast',
    description: 'The forecast for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'forget-city',
    description: 'Forgets a city for good',
    path: '/api/forget',
    annotations: { destructiveHint: true },
  },
];

export const json = (response: ServerResponse, status: number, value: unknown): void =>
  void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

export function startUrlApp(
  meta: Record<string, unknown>,
  answer: (request: SeenRequest, response: ServerResponse) => void,
): Promise<UrlApp> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/meta') return json(response, 200, meta);
      const one = { url: request.url ?? '/', headers: request.headers, body };
      seen.push(one);
      answer(one, response);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}
