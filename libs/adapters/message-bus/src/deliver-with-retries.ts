// The one retry policy of every adapter: a failing handler is retried with exponential backoff, and after the last
// attempt the message is logged (id, type, where it was; never its value) and given up, so that one poisoned message
// never blocks the messages behind it. Consumers recover such work from the event log.
import type { BusLog, BusMessage, Delivery } from './message-bus.port.js';

export interface RetryPolicy {
  readonly maxAttempts: number;
  /** Wait before the second attempt; doubled for each one after. */
  readonly backoffMs: number;
  readonly log: BusLog;
}

export type DeliveryOutcome = 'delivered' | 'given-up';

/**
 * Hands `message` to `handle` until it succeeds or the attempts run out. `beforeRetry` runs before each retry: the
 * Kafka adapter heartbeats there, and throws when its consumer is stopping so the message stays uncommitted.
 */
export async function deliverWithRetries(
  message: BusMessage,
  handle: (message: BusMessage, delivery: Delivery) => Promise<void>,
  policy: RetryPolicy,
  where: Readonly<Record<string, unknown>>,
  beforeRetry: () => Promise<void> = () => Promise.resolve(),
  delivery: Delivery = { heartbeat: () => Promise.resolve() },
): Promise<DeliveryOutcome> {
  const attempts = Math.max(1, policy.maxAttempts);
  for (let attempt = 1; ; attempt++) {
    try {
      await handle(message, delivery);
      return 'delivered';
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const context = { ...where, id: message.id, type: message.type, key: message.key, attempt, reason };
      if (attempt >= attempts) {
        policy.log('error', 'message bus: handler kept failing; message given up', { ...context, attempts });
        return 'given-up';
      }
      policy.log('warn', 'message bus: handler failed; retrying', context);
      await new Promise((resolve) => setTimeout(resolve, policy.backoffMs * 2 ** (attempt - 1)));
      await beforeRetry();
    }
  }
}

/** The default when an adapter is given no log: stderr, one JSON line per entry. */
export const stderrBusLog: BusLog = (level, message, context) => {
  if (level === 'debug' || level === 'info') return;
  process.stderr.write(`${JSON.stringify({ level, message, ...context })}\n`);
};
