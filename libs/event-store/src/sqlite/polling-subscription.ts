// A catch-up subscription over readAll: reads batches after the checkpoint until none is left, then waits for an
// append notification (same process) or a poll tick (other processes). Ordered positions mean no gaps or duplicates.
import type { EventStore, SubscribeOptions, Subscription } from '../event-store.port.js';

export interface PollingOptions {
  readonly pollIntervalMs: number;
  /** Registers a listener for local appends; returns its removal. */
  readonly onAppended?: (listener: () => void) => () => void;
}

export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  options: SubscribeOptions,
  polling: PollingOptions,
): Subscription {
  let stopped = false;
  let wake: (() => void) | undefined;
  /** Set by a local append since the last read began: there may be more to read. */
  let appended = false;
  const removeListener = polling.onAppended?.(() => {
    appended = true;
    wake?.();
  });
  const batchSize = options.batchSize ?? 500;

  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, polling.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const loop = async () => {
    let checkpoint = options.after;
    let caughtUp = false;
    while (!stopped) {
      appended = false;
      const batch = await store.readAll({ after: checkpoint, maxCount: batchSize });
      if (stopped) break;
      if (batch.length > 0) {
        await options.onEvents(batch);
        checkpoint = batch[batch.length - 1]!.position;
        // SQLite answers synchronously: without a macrotask turn, a long catch-up would starve HTTP and timers.
        await new Promise<void>((resolve) => setImmediate(resolve));
        // A full batch may have more behind it. A short one reached the head: reading again finds only what was
        // appended since, which a local append announces (and the poll tick finds for other processes).
        if (batch.length === batchSize || appended) continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        options.onCaughtUp?.();
      }
      if (appended) continue;
      await idle();
    }
  };

  const running = loop().catch((error: unknown) => {
    if (!stopped) options.onError?.(error);
  });

  return {
    async stop() {
      stopped = true;
      removeListener?.();
      wake?.();
      await running;
    },
  };
}
