// The one streaming path of the compatible routes (chat completions, Responses, Messages): the gateway's deltas are
// pulled one at a time and handed to the route's encoder, which only translates them into its wire format. The first
// delta decides between an ordinary HTTP error (nothing sent yet: the client gets a 4xx/5xx in its route's envelope)
// and a stream; an error after it goes to the encoder as an event; the stall timeout, backpressure and the abort of the
// upstream call on disconnect are the SseWriter's and the gateway's, the same for every route.
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { toErrorResponse, type ErrorBody } from '#http';
import type { ChatDelta } from '#model-providers';
import { SseWriter } from './sse.js';

/** What a route makes of a stream of chat deltas (or of another piece it passes through): its own events. */
export interface StreamEncoder<T = ChatDelta> {
  /** Events sent once the stream is open, before the first delta's (Responses' `response.created`). */
  start?(sse: SseWriter): Promise<void>;
  delta(piece: T, sse: SseWriter): Promise<void>;
  /** After the last delta (writes to a closed stream are dropped). */
  end(sse: SseWriter): Promise<void>;
  /** An error after the stream began, in the route's own error event. */
  error(status: number, body: ErrorBody, sse: SseWriter): Promise<void>;
}

const INTERNAL: ErrorBody = {
  error: { type: 'api_error', code: 'internal_error', message: 'internal error; it has been logged' },
};

export async function streamReply<T>(
  reply: FastifyReply,
  stallTimeoutMs: number,
  logger: Logger,
  model: string,
  stream: AsyncIterable<T>,
  encoder: StreamEncoder<T>,
): Promise<void> {
  const deltas = stream[Symbol.asyncIterator]();
  // The first delta decides between an HTTP error (nothing sent yet) and a stream.
  let next = await deltas.next();
  const sse = SseWriter.open(reply, stallTimeoutMs);
  try {
    if (encoder.start) await encoder.start(sse);
    while (!next.done) {
      await encoder.delta(next.value, sse);
      if (sse.closed) break;
      next = await deltas.next();
    }
    await encoder.end(sse);
  } catch (error) {
    const known = toErrorResponse(error);
    if (!known) logger.error({ err: error, model }, 'chat stream failed');
    const status = known?.status ?? 500;
    if (!sse.closed && status !== 499) await encoder.error(status, known?.body ?? INTERNAL, sse);
  } finally {
    // Ends the upstream call (and records usage) if the loop stopped early.
    await deltas.return?.();
    sse.end();
  }
}
