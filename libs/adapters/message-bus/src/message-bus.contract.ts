// One contract for every MessageBus adapter: in-process always, Kafka against librdkafka's mock cluster (and a real
// broker when KAFKA_BROKERS is set). Each test opens its own bus on fresh topic and group names. Nothing waits a fixed
// time: tests poll until what they expect has arrived, with a generous deadline that only a failure reaches.
import { randomUUID } from 'node:crypto';
import { waitUntil } from '#testing/fixtures';
import type { BusLog, BusLogLevel, BusMessage, MessageBus } from './message-bus.port.js';

export interface ContractBusOptions {
  readonly maxAttempts: number;
  readonly log: BusLog;
}

export type OpenMessageBus = (options: ContractBusOptions) => Promise<MessageBus>;

const DEADLINE_MS = 20_000;
const MAX_ATTEMPTS = 3;

const fresh = (prefix: string): string => `${prefix}-${randomUUID().replace(/-/g, '').slice(0, 12)}`;

const message = (key: string, seq: number, extra: Partial<BusMessage> = {}): BusMessage => ({
  key,
  id: fresh('evt'),
  type: 'AgentCreated.v1',
  value: { key, seq, nested: { list: [seq, `${key}-${seq}`], flag: seq % 2 === 0 } },
  ...extra,
});

const byId = (messages: readonly BusMessage[]): BusMessage[] =>
  [...messages].sort((a, b) => a.id.localeCompare(b.id));

/** A handler that records what it was given. */
const recorder = () => {
  const received: BusMessage[] = [];
  return { received, handle: async (m: BusMessage): Promise<void> => void received.push(m) };
};

interface LoggedEntry {
  readonly level: BusLogLevel;
  readonly message: string;
  readonly context?: Readonly<Record<string, unknown>>;
}

export function messageBusContract(name: string, open: OpenMessageBus): void {
  describe(`MessageBus contract: ${name}`, () => {
    let bus: MessageBus;
    let logged: LoggedEntry[];

    beforeEach(async () => {
      logged = [];
      bus = await open({
        maxAttempts: MAX_ATTEMPTS,
        log: (level, text, context) => logged.push({ level, message: text, context }),
      });
    });

    afterEach(async () => {
      await bus.close();
    });

    it('gives each group every message, intact (key, id, type, value, headers)', async () => {
      const topic = fresh('topic');
      const audit = recorder();
      const workers = recorder();
      await Promise.all([
        bus.consume({ topic, group: fresh('audit'), handle: audit.handle }),
        bus.consume({ topic, group: fresh('workers'), handle: workers.handle }),
      ]);
      const sent = [
        ...Array.from({ length: 9 }, (_, n) => message(`agent-${n % 3}`, n)),
        message('agent-9', 9, { headers: { correlationId: 'corr-1', 'schema-version': '2' } }),
      ];
      await bus.publish(topic, sent);
      await waitUntil(() => audit.received.length >= 10 && workers.received.length >= 10, DEADLINE_MS);
      expect(byId(audit.received)).toEqual(byId(sent));
      expect(byId(workers.received)).toEqual(byId(sent));
    });

    it('shares a group between its consumers: every message once, none lost, both consumers busy', async () => {
      const topic = fresh('topic');
      const group = fresh('workers');
      const first = recorder();
      const second = recorder();
      await Promise.all([
        bus.consume({ topic, group, handle: first.handle }),
        bus.consume({ topic, group, handle: second.handle }),
      ]);
      // Distinct keys spread the messages over the partitions (on Kafka), and so over both members.
      const sent = Array.from({ length: 60 }, (_, n) => message(`stream-${n}`, n));
      await bus.publish(topic, sent);
      await waitUntil(
        () => new Set([...first.received, ...second.received].map((m) => m.id)).size >= 60,
        DEADLINE_MS,
      );
      expect(first.received.length).toBeGreaterThan(0);
      expect(second.received.length).toBeGreaterThan(0);
      expect(byId([...first.received, ...second.received])).toEqual(byId(sent));
    });

    it("delivers one key's messages in publish order, across publishes", async () => {
      const topic = fresh('topic');
      const consumer = recorder();
      await bus.consume({ topic, group: fresh('ordered'), handle: consumer.handle });
      const keys = ['document-a', 'document-b', 'document-c'];
      const sent: BusMessage[] = [];
      for (let batch = 0; batch < 3; batch++) {
        const messages = Array.from({ length: 12 }, (_, n) => message(keys[n % 3]!, batch * 12 + n));
        sent.push(...messages);
        await bus.publish(topic, messages);
      }
      await waitUntil(() => consumer.received.length >= sent.length, DEADLINE_MS);
      for (const key of keys) {
        expect(consumer.received.filter((m) => m.key === key).map((m) => m.id)).toEqual(
          sent.filter((m) => m.key === key).map((m) => m.id),
        );
      }
    });

    it('retries a failing handler until it succeeds, and keeps the key in order behind it', async () => {
      const topic = fresh('topic');
      const flaky = message('document-x', 0);
      const behind = message('document-x', 1);
      const attempts = new Map<string, number>();
      const delivered: string[] = [];
      await bus.consume({
        topic,
        group: fresh('retrying'),
        handle: async (m) => {
          const attempt = (attempts.get(m.id) ?? 0) + 1;
          attempts.set(m.id, attempt);
          if (m.id === flaky.id && attempt < MAX_ATTEMPTS) throw new Error(`transient failure ${attempt}`);
          delivered.push(m.id);
        },
      });
      await bus.publish(topic, [flaky, behind]);
      await waitUntil(() => delivered.includes(behind.id), DEADLINE_MS);
      expect(attempts.get(flaky.id)).toBe(MAX_ATTEMPTS);
      expect(delivered).toEqual([flaky.id, behind.id]);
      expect(logged.filter((entry) => entry.level === 'warn' && entry.context?.id === flaky.id)).toHaveLength(
        MAX_ATTEMPTS - 1,
      );
    });

    it('gives up a message whose handler keeps failing, logs it without its value, and delivers the next', async () => {
      const topic = fresh('topic');
      const secret = `secret-${randomUUID()}`;
      const poisoned = message('document-y', 0, { value: { text: secret } });
      const next = message('document-y', 1);
      const attempts = new Map<string, number>();
      const delivered: string[] = [];
      await bus.consume({
        topic,
        group: fresh('poisoned'),
        handle: async (m) => {
          attempts.set(m.id, (attempts.get(m.id) ?? 0) + 1);
          if (m.id === poisoned.id) throw new Error('this message cannot be handled');
          delivered.push(m.id);
        },
      });
      await bus.publish(topic, [poisoned, next]);
      await waitUntil(() => delivered.includes(next.id), DEADLINE_MS);
      expect(attempts.get(poisoned.id)).toBe(MAX_ATTEMPTS);
      expect(delivered).toEqual([next.id]);
      const givenUp = logged.filter((entry) => entry.level === 'error' && entry.context?.id === poisoned.id);
      expect(givenUp).toHaveLength(1);
      expect(givenUp[0]!.context).toMatchObject({
        type: poisoned.type,
        reason: 'this message cannot be handled',
      });
      expect(JSON.stringify(logged)).not.toContain(secret);
    });

    it('delivers nothing more to a stopped consumer; its group goes on from where it stopped', async () => {
      const topic = fresh('topic');
      const group = fresh('stopping');
      const stopped = recorder();
      const successor = recorder();
      const consumer = await bus.consume({ topic, group, handle: stopped.handle });
      const before = message('agent-1', 0);
      await bus.publish(topic, [before]);
      await waitUntil(() => stopped.received.length >= 1, DEADLINE_MS);
      await consumer.stop();
      await bus.consume({ topic, group, handle: successor.handle });
      const after = [message('agent-1', 1), message('agent-2', 2)];
      await bus.publish(topic, after);
      await waitUntil(() => successor.received.length >= 2, DEADLINE_MS);
      expect(stopped.received.map((m) => m.id)).toEqual([before.id]);
      // The message handled before the stop is not handed out again: its delivery was recorded (committed on Kafka).
      expect(byId(successor.received)).toEqual(byId(after));
    });
  });
}
