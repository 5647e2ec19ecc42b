// Embedded message bus: one process, no broker. Each group gets every message published while it has members, in
// publish order per group, one member after the other; a failing handler is retried and, after the last attempt,
// logged and given up (as on Kafka), so the group moves on. Nothing is kept for a group with no members.
import { deliverWithRetries, stderrBusLog, type RetryPolicy } from './deliver-with-retries.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  type BusLog,
  type BusMessage,
  type Consumer,
  type ConsumerOptions,
  type MessageBus,
} from './message-bus.port.js';

export interface InProcessMessageBusOptions {
  /** Delivery attempts per message before it is logged and given up; 3 by default. */
  readonly maxAttempts?: number;
  /** Wait before the first retry, doubled after; 10 ms by default. */
  readonly retryBackoffMs?: number;
  readonly log?: BusLog;
}

interface Group {
  readonly name: string;
  readonly members: ConsumerOptions[];
  /** The group's deliveries, one after the other; never rejects. */
  queue: Promise<void>;
  next: number;
}

export class InProcessMessageBus implements MessageBus {
  private readonly topics = new Map<string, Map<string, Group>>();
  private readonly policy: RetryPolicy;

  constructor(options: InProcessMessageBusOptions = {}) {
    this.policy = {
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      backoffMs: options.retryBackoffMs ?? 10,
      log: options.log ?? stderrBusLog,
    };
  }

  async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    const deliveries: Promise<void>[] = [];
    for (const group of this.topics.get(topic)?.values() ?? []) {
      for (const message of messages) {
        group.queue = group.queue.then(() => this.deliver(topic, group, message));
      }
      deliveries.push(group.queue);
    }
    await Promise.all(deliveries);
  }

  private async deliver(topic: string, group: Group, message: BusMessage): Promise<void> {
    if (group.members.length === 0) return;
    const member = group.members[group.next++ % group.members.length]!;
    await deliverWithRetries(message, member.handle, this.policy, { topic, group: group.name });
  }

  consume(options: ConsumerOptions): Promise<Consumer> {
    const groups = this.topics.get(options.topic) ?? new Map<string, Group>();
    this.topics.set(options.topic, groups);
    const group = groups.get(options.group) ?? {
      name: options.group,
      members: [],
      queue: Promise.resolve(),
      next: 0,
    };
    groups.set(options.group, group);
    group.members.push(options);
    options.onAssigned?.([0]);
    return Promise.resolve({
      stop: async () => {
        const index = group.members.indexOf(options);
        if (index >= 0) group.members.splice(index, 1);
        await group.queue;
      },
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.topics.values()].flatMap((groups) => [...groups.values()].map((g) => g.queue)),
    );
    this.topics.clear();
  }
}
