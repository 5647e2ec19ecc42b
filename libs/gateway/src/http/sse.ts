// Server-Sent Events over the raw response, with backpressure: a write that fills the socket buffer waits for
// `drain`, so a slow client slows the upstream read instead of growing memory, and no chunk is dropped.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

export class SseWriter {
  private constructor(private readonly raw: ServerResponse) {}

  /** Takes the response over from Fastify and sends the event-stream headers (plus any already set, like x-request-id). */
  static open(reply: FastifyReply): SseWriter {
    void reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.flushHeaders();
    return new SseWriter(raw);
  }

  get closed(): boolean {
    return this.raw.destroyed || this.raw.writableEnded;
  }

  /** Sends one `data:` event; resolves once the socket can take more. */
  async data(payload: string): Promise<void> {
    if (this.closed) return;
    if (this.raw.write(`data: ${payload}\n\n`)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.raw.off('drain', done);
        this.raw.off('close', done);
        resolve();
      };
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
