// The items of a streamed upstream body (server-sent events, NDJSON lines) as its pieces arrive: the gateway's hottest
// path. An iterator of its own fed by the body's 'data' events, where an async generator over the body's async
// iterator cost two generator layers per piece of every stream (the body's iterator is one too, woken through
// 'readable' in a next tick). Backpressure as before: while items wait for the consumer the body is paused (undici
// then stops reading the socket), so no more than one piece's items are held.
import { finished } from 'node:stream';
import type { Dispatcher } from 'undici';
import { destroy, finishReading } from './upstream-body.js';

type Response = Dispatcher.ResponseData;

/** How a body's text is cut into items. */
export interface Framing<T> {
  /** The items a piece of the body completes. */
  split(piece: string): T[];
  /** The items left when the body ends. */
  end?(): T[];
  /** Set once an item ends the stream: its own end (nothing after it is read), or an error to throw. */
  stop?: { readonly end: true } | { readonly end: false; readonly error: unknown };
}

interface Waiting<T> {
  resolve(next: IteratorResult<T>): void;
  reject(error: unknown): void;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export class BodyItems<T> implements AsyncIterableIterator<T> {
  private response: Response | undefined;
  private readonly queue: T[] = [];
  private waiting: Waiting<T> | undefined;
  /** How the body ended: undefined while it is read, null at its end, else its error. */
  private ended: { readonly error: unknown } | null | undefined;
  /** The consumer has had the end (or an error), or stopped: nothing more is read or passed on. */
  private closed = false;
  private stopWatching: (() => void) | undefined;

  constructor(
    /** Sends the request: called when the stream is first pulled (a stream nobody reads calls nobody). */
    private readonly open: () => Response | Promise<Response>,
    private readonly framing: Framing<T>,
    private readonly signal: AbortSignal,
    /** The body's failures as the upstream's errors. */
    private readonly mapError: (error: unknown) => unknown,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ done: false, value: this.queue.shift()! });
    if (this.closed) return Promise.resolve(DONE);
    if (!this.response) return this.start();
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      if (!this.settle()) this.response!.body.resume();
    });
  }

  /** The consumer stopped: at the stream's own end the body's last bytes are read (its connection kept), else ended. */
  return(): Promise<IteratorResult<T>> {
    if (!this.closed) this.close(!this.signal.aborted);
    return Promise.resolve(DONE);
  }

  private async start(): Promise<IteratorResult<T>> {
    let response: Response;
    try {
      // Failures of the request itself are mapped by the caller's `send`.
      response = await this.open();
    } catch (error) {
      this.closed = true;
      throw error;
    }
    this.response = response;
    const body = response.body;
    body.setEncoding('utf8');
    body.on('data', this.onData);
    this.stopWatching = finished(body, { writable: false }, (error) => {
      this.ended = error ? { error } : null;
      this.settle();
    });
    return this.next();
  }

  private readonly onData = (piece: string): void => {
    try {
      for (const item of this.framing.split(piece)) this.queue.push(item);
    } catch (error) {
      this.framing.stop ??= { end: false, error };
    }
    const waiting = this.waiting;
    if (waiting && this.queue.length > 0) {
      this.waiting = undefined;
      waiting.resolve({ done: false, value: this.queue.shift()! });
    }
    // Items the consumer has not asked for yet, or the stream's own end: no more is read meanwhile.
    if (this.queue.length > 0 || this.framing.stop) this.response!.body.pause();
    if (this.waiting) this.settle();
  };

  /** Answers a consumer waiting on an empty queue when the stream is over; false while more may come. */
  private settle(): boolean {
    const waiting = this.waiting;
    if (!waiting || this.queue.length > 0) return false;
    const stop = this.framing.stop;
    if (stop?.end) {
      this.waiting = undefined;
      this.close(true);
      waiting.resolve(DONE);
      return true;
    }
    const error = stop ? stop.error : this.ended?.error;
    if (stop || this.ended) {
      this.waiting = undefined;
      this.close(false);
      waiting.reject(this.mapError(error));
      return true;
    }
    if (this.ended === undefined) return false;
    // The body ended: a stream the caller aborted meanwhile failed; else the items left in the framing.
    this.waiting = undefined;
    if (this.signal.aborted) {
      this.close(false);
      waiting.reject(this.mapError(this.signal.reason));
      return true;
    }
    this.queue.push(...(this.framing.end?.() ?? []));
    this.close(true);
    waiting.resolve(this.queue.length > 0 ? { done: false, value: this.queue.shift()! } : DONE);
    return true;
  }

  /** Stops reading: an error or an abort ends the upstream request; else the body's rest is read in the background. */
  private close(keep: boolean): void {
    this.closed = true;
    if (!this.response) return;
    const body = this.response.body;
    body.off('data', this.onData);
    this.stopWatching?.();
    if (keep && !this.signal.aborted) finishReading(body, body[Symbol.asyncIterator]());
    else destroy(body);
  }
}
