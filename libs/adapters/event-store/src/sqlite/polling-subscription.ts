// A catch-up subscription over readAll: reads batches after the checkpoint until none is left, then waits until the
// store says the log has grown (a local append at once, another process's when the store's poll sees the head move).
// Ordered positions mean no gaps or duplicates. A subscription that reads some event types only and waits at the head
// passes over a local append holding none of them: it moves its checkpoint without a read (onPassed), so an append
// wakes only the subscriptions that read what it holds.
import type { EventStore, SubscribeOptions, Subscription } from '../event-store.port.js';

/** What a local append wrote: the positions `from`…`to`, every one of them, and their event types. */
export interface AppendedRange {
  readonly from: number;
  readonly to: number;
  readonly types: readonly string[];
}

export interface PollingOptions {
  /**
   * Registers a listener called whenever the log may have grown: after a local append (with what it wrote), and when
   * the store's one shared poll finds a head that other processes moved (without: anything may have been written).
   * Returns its removal.
   */
  readonly onAppended: (listener: (appended?: AppendedRange) => void) => () => void;
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
  /** The last position read (or passed over); undefined: none yet, from the start of the log. */
  let checkpoint = options.after;
  const { eventTypes, onPassed } = options;
  /**
   * True when the subscription waits at the head and the append wrote just the positions after it, none of a type it
   * reads: nothing of it is to be read.
   */
  const passesOver = (range: AppendedRange | undefined): range is AppendedRange =>
    wake !== undefined &&
    eventTypes !== undefined &&
    onPassed !== undefined &&
    range !== undefined &&
    range.from === (checkpoint ?? 0) + 1 &&
    range.to - range.from + 1 === range.types.length &&
    !range.types.some((type) => eventTypes.has(type));
  let waking = false;
  const removeListener = polling.onAppended((range) => {
    if (!passesOver(range)) {
      appended = true;
      // Woken in the next check phase: told inside the append's commit, its reads and writes came before the
      // appender's answer (a turn's, 0.8 ms later, measured). One reading meanwhile sees `appended` and reads on.
      if (wake && !waking) {
        waking = true;
        setImmediate(() => {
          waking = false;
          wake?.();
        });
      }
      return;
    }
    checkpoint = range.to;
    // Called inside the store's append: a subscriber's failure ends this subscription, never the append.
    try {
      onPassed!(range.to);
    } catch (error) {
      end();
      options.onError?.(error);
    }
  });
  const batchSize = options.batchSize ?? 500;

  const idle = () =>
    new Promise<void>((resolve) => {
      wake = () => {
        wake = undefined;
        resolve();
      };
    });

  const end = () => {
    stopped = true;
    removeListener();
    wake?.();
  };

  const loop = async () => {
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
      end();
      await running;
    },
  };
}
