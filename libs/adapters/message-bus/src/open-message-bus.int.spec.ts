import { InProcessMessageBus } from './in-process-message-bus.js';
import { KafkaMessageBus } from './kafka/kafka-message-bus.js';
import { openMessageBus, type MessageBusLogger } from './open-message-bus.js';

const logger = (): MessageBusLogger & { lines: string[] } => {
  const lines: string[] = [];
  const write = (context: object, message: string): void =>
    void lines.push(`${message} ${JSON.stringify(context)}`);
  return { lines, debug: write, info: write, warn: write, error: write };
};

describe('openMessageBus', () => {
  it('opens the in-process bus, which logs a given-up message through the logger', async () => {
    const log = logger();
    const bus = await openMessageBus(
      { messageBus: 'in-process', kafkaBrokers: [], kafkaClientId: 'x', kafkaSessionTimeoutMs: 30_000 },
      log,
    );
    expect(bus).toBeInstanceOf(InProcessMessageBus);
    await bus.consume({
      topic: 't',
      group: 'g',
      handle: async () => {
        throw new Error('broken handler');
      },
    });
    await bus.publish('t', [{ key: 'k', id: 'evt-1', type: 'T.v1', value: 'secret value' }]);
    expect(log.lines.join('\n')).toContain('given up');
    expect(log.lines.join('\n')).toContain('evt-1');
    expect(log.lines.join('\n')).not.toContain('secret value');
    await bus.close();
  });

  it('opens the Kafka bus without connecting to its brokers', async () => {
    const bus = await openMessageBus(
      {
        messageBus: 'kafka',
        kafkaBrokers: ['127.0.0.1:1'],
        kafkaClientId: 'agent-platform',
        kafkaSessionTimeoutMs: 30_000,
      },
      logger(),
    );
    expect(bus).toBeInstanceOf(KafkaMessageBus);
    await bus.close();
  });
});
