// The api's extra listening sockets: connections taken in by any of them are served by the one HTTP server, they stop
// listening when asked, and a port another process listens on is still refused.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ACCEPT_SOCKETS,
  acceptsOnSeveralSockets,
  openExtraAcceptSockets,
  refuseTakenPort,
} from './accept-sockets.js';

const listen = (server: Server, options: object) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => resolve((server.address() as AddressInfo).port));
  });

const get = (port: number) =>
  new Promise<string>((resolve, reject) => {
    // A new connection each time (no agent): the kernel spreads them over the sockets.
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

const linux = acceptsOnSeveralSockets() ? describe : describe.skip;

linux('extra accept sockets', () => {
  it('serves the connections every socket takes in, and stops listening when closed', async () => {
    const server = createServer((_req, res) => res.end('served'));
    const port = await listen(server, { host: '127.0.0.1', port: 0, backlog: 64, reusePort: true });
    const closeExtras = await openExtraAcceptSockets(server, 64);
    try {
      const bodies = await Promise.all(Array.from({ length: ACCEPT_SOCKETS * 4 }, () => get(port)));
      expect(new Set(bodies)).toEqual(new Set(['served']));
    } finally {
      closeExtras();
      server.closeAllConnections();
      await closeServer(server);
    }
    await expect(get(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('refuses a port another server listens on, and lets a free one be used', async () => {
    const taken = createServer();
    const port = await listen(taken, { host: '127.0.0.1', port: 0, reusePort: true });
    try {
      await expect(refuseTakenPort('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await closeServer(taken);
    }
    await expect(refuseTakenPort('127.0.0.1', port)).resolves.toBeUndefined();
  });
});
