// More than one listening socket on the api's port, so a burst of new connections is taken in while streams flow.
// Node accepts a single connection per listening socket per turn of the event loop, and a turn that also carries the
// chunks of a thousand open streams lasts tens of milliseconds: a burst of a thousand clients then waited in the
// kernel's accept queue for up to 20 s, their first byte seconds behind every stream already running. With
// SO_REUSEPORT (Linux) the kernel spreads new connections over ACCEPT_SOCKETS listening sockets on the same address,
// each taking one connection a turn; the extra ones hand theirs to the same HTTP server, which serves them as its own.
// Elsewhere the api keeps its one socket.
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import type { Server } from 'node:http';

/** Listening sockets on Linux: connections taken in per turn of the event loop, at most. */
export const ACCEPT_SOCKETS = 16;

/** Whether the api listens on several sockets (the kernel spreads connections only on Linux). */
export const acceptsOnSeveralSockets = (): boolean => process.platform === 'linux' && ACCEPT_SOCKETS > 1;

/**
 * Refuses a port another process listens on. A socket with SO_REUSEPORT may share its port with any other of the same
 * user that set it too, so a second api started on a taken port would take half its connections instead of failing:
 * a plain listen first fails with EADDRINUSE as it always did. Port 0 (a free port chosen by the kernel) is never
 * shared.
 */
export async function refuseTakenPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, resolve);
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/**
 * Opens the extra listening sockets on the address `server` listens on (itself opened with `reusePort`); the returned
 * function stops them listening (when the server closes). Their connections are the server's: it ends them.
 */
export async function openExtraAcceptSockets(server: Server, backlog: number): Promise<() => void> {
  const address = server.address();
  if (address === null || typeof address === 'string') return () => {};
  const extras: NetServer[] = [];
  const closeAll = () => {
    for (const extra of extras) if (extra.listening) extra.close();
  };
  try {
    for (let i = 1; i < ACCEPT_SOCKETS; i++) {
      // The options http.Server gives its own sockets (half-open allowed, Nagle off).
      const extra = createNetServer({ allowHalfOpen: true, noDelay: true }, (socket) =>
        server.emit('connection', socket),
      );
      extras.push(extra);
      await new Promise<void>((resolve, reject) => {
        extra.once('error', reject);
        extra.listen({ host: address.address, port: address.port, backlog, reusePort: true }, resolve);
      });
    }
  } catch (error) {
    closeAll();
    throw error;
  }
  return closeAll;
}
