// Embedded message bus: one process, no broker. Each group gets every message once, in publish order per group; a
// handler failure is retried (at least once, as on Kafka) before the group moves on.
import type { BusMessage, Consumer, ConsumerOptions, MessageBus } from './message-bus.port.js';

interface Group {
  readonly members: ConsumerOptions[];
  queue: Promise<void>;
  next: number;
}

export class InProcessMessageBus implements MessageBus {
  private readonly topics = new Map<string, Map<string, Group>>();

  constructor(private readonly maxAttempts = 3) {}

  async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    const deliveries: Promise<void>[] = [];
    for (const group of this.topics.get(topic)?.values() ?? []) {
      for (const message of messages) {
        group.queue = group.queue.then(() => this.deliver(group, message));
      }
      deliveries.push(group.queue);
    }
    await Promise.all(deliveries);
  }

  private async deliver(group: Group, message: BusMessage): Promise<void> {
    if (group.members.length === 0) return;
    const member = group.members[group.next++ % group.members.length]!;
    for (let attempt = 1; ; attempt++) {
      try {
        await member.handle(message);
        return;
      } catch (error) {
        if (attempt >= this.maxAttempts) throw error;
      }
    }
  }

  consume(options: ConsumerOptions): Promise<Consumer> {
    const groups = this.topics.get(options.topic) ?? new Map<string, Group>();
    this.topics.set(options.topic, groups);
    const group = groups.get(options.group) ?? { members: [], queue: Promise.resolve(), next: 0 };
    groups.set(options.group, group);
    group.members.push(options);
    return Promise.resolve({
      stop: async () => {
        group.members.splice(group.members.indexOf(options), 1);
        await group.queue.catch(() => undefined);
      },
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.topics.values()].flatMap((groups) =>
        [...groups.values()].map((g) => g.queue.catch(() => undefined)),
      ),
    );
    this.topics.clear();
  }
}
