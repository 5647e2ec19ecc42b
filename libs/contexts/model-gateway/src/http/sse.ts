// Server-Sent Events over the raw response, with backpressure end to end: a write that fills the socket buffer waits
// for `drain`, and nothing more is pulled from the upstream (or the offline model) meanwhile, so a slow client slows
// the source instead of growing memory, and no chunk is dropped. A client that stops reading altogether holds a
// stream for at most the stall timeout (time the api itself was busy does not count): then its connection is closed,
// which aborts the upstream call and frees everything the stream held. A stream gives the event loop a turn every YIELD_BYTES: when the socket takes what it is
// given at once, the next write follows in a microtask and even the drain comes in a next tick (the response uncorks
// and completes its write there), so a stream whose client keeps up never leaves the tick queue. 24 offline answers
// of 8 MB held the loop 5.7 s that way: no timer, no other request, and streams still being read cut as stalled.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

let openStreams = 0;

/** A stream lets the event loop run once per this many characters written. */
const YIELD_BYTES = 64 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const DONE: Promise<void> = Promise.resolve();

/** A stall timer this late (or a tenth of the timeout, if more) fired in a busy loop, not for an idle client. */
const LATE_MS = 100;

/** Event streams open right now (the `chat_streams_open` gauge): back to 0 once every client has gone. */
export const streamsOpen = (): number => openStreams;

export class SseWriter {
  private writtenSinceTurn = 0;

  private constructor(
    private readonly raw: ServerResponse,
    private readonly stallTimeoutMs: number,
  ) {}

  /** Takes the response over from Fastify and sends the event-stream headers (plus any already set, like x-request-id). */
  static open(reply: FastifyReply, stallTimeoutMs: number): SseWriter {
    void reply.hijack();
    const raw = reply.raw;
    openStreams++;
    raw.once('close', () => openStreams--);
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.flushHeaders();
    return new SseWriter(raw, stallTimeoutMs);
  }

  get closed(): boolean {
    return this.raw.destroyed || this.raw.writableEnded;
  }

  /** Sends one `data:` event; resolves once the socket can take more. */
  data(payload: string): Promise<void> {
    return this.write(`data: ${payload}\n\n`);
  }

  /** Sends one named event (`event:` then `data:`, the payload as JSON on one line). */
  event(name: string, payload: unknown): Promise<void> {
    return this.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
  }

  /** Not `async`: a frame the socket takes at once (nearly every one) costs no promise of its own. */
  private write(frame: string): Promise<void> {
    if (this.closed) return DONE;
    const accepted = this.raw.write(frame);
    this.writtenSinceTurn += frame.length;
    if (!accepted) return this.drained().then(() => this.turnIfDue());
    return this.turnIfDue();
  }

  private turnIfDue(): Promise<void> {
    if (this.writtenSinceTurn < YIELD_BYTES) return DONE;
    this.writtenSinceTurn = 0;
    return nextTurn();
  }

  private drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      let stalled: NodeJS.Timeout;
      let waiting = true;
      const done = () => {
        waiting = false;
        clearTimeout(stalled);
        this.raw.off('drain', done);
        this.raw.off('close', done);
        resolve();
      };
      // The client has read nothing for this long: close its connection ('close' ends the wait and aborts upstream).
      // Only the client's time counts. A timer that fires late found the loop busy past the deadline (other work, a
      // long collection): the client may have read meanwhile, and the socket's buffers may still be on their way to
      // it (TCP), so it gets a whole window again. On time, the verdict still waits for the loop's next poll for
      // I/O, which runs after the timers.
      const watch = () => {
        const deadline = Date.now() + this.stallTimeoutMs;
        stalled = setTimeout(() => {
          if (Date.now() - deadline > Math.max(LATE_MS, this.stallTimeoutMs / 10)) return watch();
          setImmediate(() => waiting && this.raw.destroy());
        }, this.stallTimeoutMs);
      };
      watch();
      this.raw.on('drain', done);
      this.raw.on('close', done);
    });
  }

  end(): void {
    if (!this.closed) this.raw.end();
  }
}

/** Calls `abort` when the client goes away before the response is complete. */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
