// The Kafka adapter, through real kafkajs over TCP: the shared contract against librdkafka's mock cluster (started
// here, stopped by PID afterwards; skipped aloud when librdkafka or a C compiler is missing), and against a real broker
// when KAFKA_BROKERS is set. Then what only this adapter has: partitions worked side by side, record encoding.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { skipWithReason, waitUntil } from '#testing/fixtures';
import { startKafkaMockCluster } from '#testing/kafka-mock-cluster';
import { messageBusContract } from '../message-bus.contract.js';
import type { Consumer as KafkaConsumer } from 'kafkajs';
import type { BusMessage } from '../message-bus.port.js';
import { decodeMessage, encodeMessage, KafkaMessageBus } from './kafka-message-bus.js';

const quiet = (): void => undefined;
const fresh = (prefix: string): string => `${prefix}-${randomUUID().replace(/-/g, '').slice(0, 12)}`;
/**
 * Short group timings: the mock cluster elects a group leader only when its join timer runs out (3 s for a new group,
 * the session timeout less 1 s for a rebalance), whoever has joined meanwhile.
 */
const fast = { clientId: 'agent-platform-test', sessionTimeoutMs: 3_000, retryBackoffMs: 50 };

/** Listening TCP sockets from /proc/net/tcp{,6}: local address in the kernel's hex notation, and port. */
async function listeningSockets(): Promise<{ address: string; port: number }[]> {
  const sockets: { address: string; port: number }[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue;
      const [address, port] = local.split(':');
      sockets.push({ address: address!, port: parseInt(port!, 16) });
    }
  }
  return sockets;
}

const mock = await startKafkaMockCluster();

if ('unavailable' in mock) {
  const suite = 'MessageBus contract: kafka (librdkafka mock cluster)';
  skipWithReason(suite, mock.unavailable);
  it(`${suite} did not run: ${mock.unavailable}`, () => expect(mock.unavailable).toBeTruthy());
} else {
  afterAll(() => mock.stop());

  messageBusContract(
    'kafka (librdkafka mock cluster)',
    async ({ maxAttempts, log }) => new KafkaMessageBus({ ...fast, brokers: mock.brokers, maxAttempts, log }),
  );

  describe('KafkaMessageBus on the mock cluster', () => {
    it('listens on 127.0.0.1 only', async () => {
      const ports = mock.brokers.map((broker) => {
        expect(broker).toMatch(/^127\.0\.0\.1:\d+$/);
        return Number(broker.split(':')[1]);
      });
      expect(ports.length).toBeGreaterThan(0);
      if (process.platform !== 'linux') return;
      // Every listening socket on a broker port, IPv4 and IPv6: only the loopback address may appear.
      const sockets = await listeningSockets();
      for (const port of ports) {
        expect(sockets.filter((socket) => socket.port === port).map((socket) => socket.address)).toEqual([
          '0100007F',
        ]);
      }
    });

    it('works several partitions at once when asked to', async () => {
      const bus = new KafkaMessageBus({
        ...fast,
        brokers: mock.brokers,
        partitionsConsumedConcurrently: 4,
        log: quiet,
      });
      let releaseFirst!: () => void;
      const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));
      try {
        const topic = fresh('topic');
        const handled: string[] = [];
        await bus.consume({
          topic,
          group: fresh('parallel'),
          handle: async (m) => {
            // The first message holds its partition until another message is handled. Messages behind it in its
            // partition cannot be; so this completes only if a second partition is worked meanwhile.
            const first = handled.length === 0;
            handled.push(m.id);
            if (first) await firstReleased;
            else releaseFirst();
          },
        });
        const sent: BusMessage[] = Array.from({ length: 16 }, (_, n) => ({
          key: `stream-${n}`,
          id: fresh('evt'),
          type: 'Worked.v1',
          value: n,
        }));
        await bus.publish(topic, sent);
        await waitUntil(() => handled.length >= sent.length, 20_000);
        expect([...handled].sort()).toEqual(sent.map((m) => m.id).sort());
      } finally {
        releaseFirst();
        await bus.close();
      }
    });

    it('tries a group join the broker refused again, with a new consumer, and logs it without values', async () => {
      const logged: { level: string; message: string; context?: Readonly<Record<string, unknown>> }[] = [];
      const bus = new KafkaMessageBus({
        ...fast,
        brokers: mock.brokers,
        joinBackoffMs: 10,
        log: (level, message, context) => logged.push({ level, message, context }),
      });
      // The first consumer's run() fails as a SyncGroup answered INVALID_REQUEST does (seen on the mock cluster).
      const kafka = (bus as unknown as { kafka: { consumer: (config: unknown) => KafkaConsumer } }).kafka;
      const create = kafka.consumer.bind(kafka);
      let created = 0;
      kafka.consumer = (config) => {
        const consumer = create(config);
        if (++created === 1)
          consumer.run = () =>
            Promise.reject(
              Object.assign(
                new Error('The server experienced an unexpected error when processing the request'),
                {
                  name: 'KafkaJSProtocolError',
                  type: 'INVALID_REQUEST',
                },
              ),
            );
        return consumer;
      };
      try {
        const topic = fresh('topic');
        const handled: unknown[] = [];
        await bus.consume({ topic, group: fresh('rejoin'), handle: async (m) => void handled.push(m.value) });
        await bus.publish(topic, [{ key: 'k', id: fresh('evt'), type: 'Worked.v1', value: 'secret-value' }]);
        await waitUntil(() => handled.length === 1, 20_000);
        expect(created).toBe(2);
        expect(logged).toContainEqual(
          expect.objectContaining({ level: 'warn', message: expect.stringContaining('trying again') }),
        );
        expect(JSON.stringify(logged)).not.toContain('secret-value');
      } finally {
        await bus.close();
      }
    });
  });
}

const realBrokers = process.env.KAFKA_BROKERS?.split(',').filter(Boolean);
if (realBrokers?.length) {
  messageBusContract(
    'kafka (KAFKA_BROKERS)',
    async ({ maxAttempts, log }) => new KafkaMessageBus({ ...fast, brokers: realBrokers, maxAttempts, log }),
  );
} else {
  skipWithReason(
    'MessageBus contract: kafka (KAFKA_BROKERS)',
    'KAFKA_BROKERS is not set (start Kafka, e.g. docker compose -f docker/compose.yml up kafka, and set KAFKA_BROKERS=localhost:9092)',
  );
}

describe('Kafka record encoding', () => {
  it('carries id and type as headers, the value as JSON, and gives back the same message', () => {
    const message: BusMessage = {
      key: 'agent-1',
      id: 'evt-1',
      type: 'AgentCreated.v1',
      value: { name: 'Ada', tags: ['a'] },
      headers: { correlationId: 'c-1' },
    };
    const record = encodeMessage(message);
    expect(record).toEqual({
      key: 'agent-1',
      value: '{"name":"Ada","tags":["a"]}',
      headers: { correlationId: 'c-1', id: 'evt-1', type: 'AgentCreated.v1' },
    });
    const received = {
      key: Buffer.from(record.key),
      value: Buffer.from(record.value),
      headers: Object.fromEntries(
        Object.entries(record.headers).map(([k, v]) => [k, Buffer.from(String(v))]),
      ),
    };
    expect(decodeMessage(received)).toEqual(message);
  });

  it('refuses a record that has no id or type header', () => {
    expect(() => decodeMessage({ key: null, value: Buffer.from('{}'), headers: {} })).toThrow(/id or type/);
  });
});
