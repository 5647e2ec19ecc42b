// A catch-up subscription over readAll: reads batches after the checkpoint until none is left, then waits until the
// store says the log has grown (a local append at once, another process's when the store's poll sees the head move).
// Ordered positions mean no gaps or duplicates.
import type { EventStore, SubscribeOptions, Subscription } from '../event-store.port.js';

export interface PollingOptions {
  /**
   * Registers a listener called whenever the log may have grown: after a local append, and when the store's one
   * shared poll finds a head that other processes moved. Returns its removal.
   */
  readonly onAppended: (listener: () => void) => () => void;
}

export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  options: SubscribeOptions,
  polling: PollingOptions,
): Subscription {
  let stopped = false;
  let wake: (() => void) | undefined;
  /** Set when the store announces that the log grew since the last read began: there may be more to read. */
  let appended = false;
  const removeListener = polling.onAppended(() => {
    appended = true;
    wake?.();
  });
  const batchSize = options.batchSize ?? 500;

  const idle = () =>
    new Promise<void>((resolve) => {
      wake = () => {
        wake = undefined;
        resolve();
      };
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
        // appended since, which the store announces.
        if (batch.length === batchSize || appended) continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        options.onCaughtUp?.();
      }
      // Checked and set without an await between: neither a stop nor an append can slip past unseen.
      if (appended || stopped) continue;
      await idle();
    }
  };

  const running = loop().catch((error: unknown) => {
    if (!stopped) options.onError?.(error);
  });

  return {
    async stop() {
      stopped = true;
      removeListener();
      wake?.();
      await running;
    },
  };
}
