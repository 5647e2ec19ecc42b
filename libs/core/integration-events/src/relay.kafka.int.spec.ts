// The relay's contract on the Kafka adapter, through real kafkajs against librdkafka's mock cluster (started here,
// stopped afterwards; skipped aloud when librdkafka or a C compiler is missing).
import { skipWithReason } from '#testing/fixtures';
import { startKafkaMockCluster } from '#testing/kafka-mock-cluster';
import { KafkaMessageBus } from '#message-bus/kafka/kafka-message-bus';
import { relayContract } from './relay.contract.js';

const mock = await startKafkaMockCluster();

if ('unavailable' in mock) {
  const suite = 'IntegrationEventRelay contract: kafka (librdkafka mock cluster)';
  skipWithReason(suite, mock.unavailable);
  it(`${suite} did not run: ${mock.unavailable}`, () => expect(mock.unavailable).toBeTruthy());
} else {
  afterAll(() => mock.stop());
  relayContract(
    'kafka (librdkafka mock cluster)',
    async () =>
      new KafkaMessageBus({
        brokers: mock.brokers,
        clientId: 'agent-platform-test',
        sessionTimeoutMs: 3_000,
        retryBackoffMs: 50,
        log: () => undefined,
      }),
  );
}
