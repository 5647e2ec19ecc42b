// The event-stream writer on a real Fastify server and a real socket, read by a client in a worker thread (its own
// event loop, so it goes on reading while this one is busy). No timing is asserted: what is checked is the order of
// events (a timer before the stream's end) and whether the client got the whole stream.
import Fastify, { type FastifyInstance } from 'fastify';
import { Worker } from 'node:worker_threads';
import { SseWriter } from './sse.js';

const FRAME = 'x'.repeat(200);
const FRAMES = 40_000; // ≈ 8 MB, like a 200,000-character offline answer streamed word by word

interface Outcome {
  readonly bytes: number;
  readonly complete: boolean;
}

/**
 * A client in its own thread that reads the stream at `port`, counting what it has read in `progress[0]` (shared
 * memory, readable while this thread is blocked). With `pauseAfter`, it stops reading once it has that many bytes,
 * tells `onPaused`, and reads on when told to by the function given to it.
 */
const readInWorker = (
  port: number,
  pauseAfter = Infinity,
  onPaused: (resume: () => void) => void = () => undefined,
  progress = new Int32Array(new SharedArrayBuffer(4)),
): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const http = require('node:http');
       http.get({ host: '127.0.0.1', port: workerData.port, path: '/stream' }, (res) => {
         let bytes = 0;
         let paused = false;
         parentPort.on('message', () => res.resume());
         res.on('data', (chunk) => {
           bytes += chunk.length;
           Atomics.store(workerData.progress, 0, bytes);
           if (!paused && bytes >= workerData.pauseAfter) {
             paused = true;
             res.pause();
             parentPort.postMessage({ paused: true });
           }
         });
         res.on('end', () => parentPort.postMessage({ bytes, complete: res.complete }));
         res.on('error', () => parentPort.postMessage({ bytes, complete: false }));
         res.on('aborted', () => parentPort.postMessage({ bytes, complete: false }));
       }).on('error', () => parentPort.postMessage({ bytes: 0, complete: false }));`,
      { eval: true, workerData: { port, pauseAfter, progress } },
    );
    worker.on('message', (message: Outcome | { paused: true }) => {
      if ('paused' in message) return onPaused(() => worker.postMessage('resume'));
      void worker.terminate();
      resolve(message);
    });
    worker.once('error', reject);
  });

describe('SseWriter (a real server and socket)', () => {
  let app: FastifyInstance;
  let port: number;
  let route: (sse: SseWriter) => Promise<void>;
  let stallTimeoutMs = 30_000;

  beforeAll(async () => {
    app = Fastify({ forceCloseConnections: true });
    app.get('/stream', async (_request, reply) => {
      const sse = SseWriter.open(reply, stallTimeoutMs);
      await route(sse);
      sse.end();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  it('lets the event loop run while a client that keeps up takes a long stream', async () => {
    // When the socket takes every write at once, the next write and even the drain come in microtasks and next
    // ticks: without a turn of the loop now and then, the whole stream ran before any timer or other request.
    let framesAtTimer = -1;
    let written = 0;
    route = async (sse) => {
      setTimeout(() => (framesAtTimer = written), 0);
      for (; written < FRAMES; written++) await sse.data(FRAME);
    };
    const outcome = await readInWorker(port);
    expect(outcome.complete).toBe(true);
    expect(framesAtTimer).toBeGreaterThanOrEqual(0);
    // A turn every 64 KiB written: the timer fires within a few of them (it ran at ≈ 575 KB, when the socket's buffers
    // were full, before).
    expect(framesAtTimer * `data: ${FRAME}\n\n`.length).toBeLessThan(4 * 64 * 1024);
  });

  it('does not cut as stalled a client that read while this process was busy past the stall timeout', async () => {
    // The client stops reading until the writer waits for a drain, then reads on in its own thread while this one is
    // blocked by other work for 1.5 × the stall timeout (and until the client has read all that was in flight: on a
    // loaded machine its thread may wait for a core), as a long collection or another request's synchronous work would
    // block it. The loop's next turn runs its timers before it polls for I/O, so the expired stall timer comes first,
    // before the drain (and part of what the client read may still be in TCP's buffers: seen on a loaded machine):
    // the time this process was busy must not count against the client.
    stallTimeoutMs = 1000;
    // More than the socket buffers on both sides hold, however large the kernel tunes them (≈ 4.5 MB in flight seen).
    const frames = 4 * FRAMES;
    let written = 0;
    route = async (sse) => {
      for (; written < frames; written++) await sse.data(FRAME);
    };
    const progress = new Int32Array(new SharedArrayBuffer(4));
    let blocked = false;
    let readWhileBlocked = 0;
    const outcome = await readInWorker(
      port,
      1024 * 1024,
      (resume) => {
        // The writer waits (with its stall timer running) once it has written nothing for 50 ms.
        let seen = -1;
        const watch = setInterval(() => {
          if (written === frames) {
            clearInterval(watch); // all of it went into the buffers: no wait to test (blocked stays false)
            resume();
          } else if (written === seen) {
            clearInterval(watch);
            resume();
            setImmediate(() => {
              blocked = true;
              const before = Atomics.load(progress, 0);
              const until = Date.now() + 1.5 * stallTimeoutMs;
              const giveUp = Date.now() + 20 * stallTimeoutMs;
              let changedAt = Date.now();
              while (Date.now() < giveUp) {
                const read = Atomics.load(progress, 0) - before;
                if (read !== readWhileBlocked) [readWhileBlocked, changedAt] = [read, Date.now()];
                // Until the client has read everything in flight: this socket's send buffer is then empty.
                if (Date.now() >= until && readWhileBlocked > 0 && Date.now() - changedAt >= 200) break;
              }
            });
          }
          seen = written;
        }, 50);
      },
      progress,
    );
    expect(blocked).toBe(true);
    expect(readWhileBlocked).toBeGreaterThan(0);
    expect(outcome).toEqual({ bytes: expect.any(Number), complete: true });
    expect(outcome.bytes).toBeGreaterThan(frames * FRAME.length);
  });
});
