// Ending an upstream answer's body: read to its end when the consumer stopped at the stream's own end (its connection
// then goes back to the pool), destroyed otherwise; and an error body read up to a limit.
import type { Dispatcher } from 'undici';

/** How long, and how much, the rest of a body a consumer stopped reading is read before its connection is closed. */
const FINISH_READING_MS = 1_000;
const FINISH_READING_BYTES = 16 * 1024;

type Body = Dispatcher.ResponseData['body'];

export function destroy(body: Body): void {
  if (!body.destroyed) body.destroy();
}

/**
 * Reads and drops, in the background, the rest of a body whose consumer stopped before its end. An SSE stream says
 * `[DONE]` before its body ends, and the end often arrives a moment later: destroying the body then aborted the
 * request and closed its connection, so every streamed call opened a new one (a TCP and TLS handshake before the next
 * call's first token). A body that ends within FINISH_READING_MS and FINISH_READING_BYTES hands its connection back
 * to the pool; any other is destroyed, as before. The consumer does not wait for it.
 */
export function finishReading(body: Body, pieces: AsyncIterator<unknown>): void {
  if (body.destroyed || body.readableEnded) return;
  const timer = setTimeout(() => destroy(body), FINISH_READING_MS);
  timer.unref();
  void (async () => {
    let bytes = 0;
    try {
      for (;;) {
        const piece = await pieces.next();
        if (piece.done) break;
        bytes += (piece.value as string | Buffer).length;
        if (bytes > FINISH_READING_BYTES) break;
      }
    } catch {
      // Destroyed by the timer, or the upstream failed: its connection is closed either way.
    } finally {
      clearTimeout(timer);
      destroy(body);
    }
  })();
}

/** At most `limit` bytes of a body as text; the rest is dropped. */
export async function readLimited(body: Body, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < limit) chunks.push(chunk.subarray(0, limit - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
