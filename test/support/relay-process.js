// The integration-event relay as a process of its own, from the build (dist/), for the test that kills it mid-publish
// (test/relay-crash.e2e.spec.ts). It runs the platform's relay (the composition root's maps) over a SQLite log and
// read store in DATA_DIR and the Kafka brokers in KAFKA_BROKERS, and reports on stdout, one line each:
//   `acked <event id>` after the bus acknowledged a message, `caught-up <position>` when its checkpoint reached the
//   log's head. With HANG_AFTER=n it stops dead after the n-th acknowledgement (mid-batch, checkpoint not stored) and
//   waits there to be killed.
import { join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { SqliteEventStore } from '../../dist/libs/adapters/event-store/src/sqlite/sqlite-event-store.js';
import { SqliteReadStore } from '../../dist/libs/adapters/read-store/src/sqlite/sqlite-read-store.js';
import { ProjectionRunner, processLeaseOwner } from '../../dist/libs/core/eventsourcing/src/index.js';
import {
  IntegrationEventRelay,
  INTEGRATION_EVENT_RELAY,
} from '../../dist/libs/core/integration-events/src/index.js';
import { KafkaMessageBus } from '../../dist/libs/adapters/message-bus/src/kafka/kafka-message-bus.js';
import { INTEGRATION_EVENT_MAPS } from '../../dist/apps/integration-events.js';

const dataDir = process.env.DATA_DIR;
const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const hangAfter = Number(process.env.HANG_AFTER ?? 0);

const kafka = new KafkaMessageBus({ brokers, clientId: 'relay-crash-test', log: () => undefined });
let acked = 0;
const bus = {
  async publish(topic, messages) {
    if (hangAfter && acked >= hangAfter) return new Promise(() => undefined);
    await kafka.publish(topic, messages);
    for (const message of messages) process.stdout.write(`acked ${message.id}\n`);
    acked += messages.length;
    if (hangAfter && acked >= hangAfter) process.stdout.write('hanging\n');
  },
  consume: (options) => kafka.consume(options),
  close: () => kafka.close(),
};

const events = new SqliteEventStore({ path: join(dataDir, 'events.sqlite'), pollIntervalMs: 20 });
const reads = new SqliteReadStore({ path: join(dataDir, 'reads.sqlite') });
const runner = new ProjectionRunner(events, reads, [new IntegrationEventRelay(bus, INTEGRATION_EVENT_MAPS)], {
  owner: processLeaseOwner('relay-crash-test'),
  batchSize: 50,
  maxBackoffMs: 100,
});
runner.start();
const head = await events.headPosition();
const timer = setInterval(() => {
  const status = runner.status().find((s) => s.name === INTEGRATION_EVENT_RELAY);
  if (status && status.checkpoint >= head) {
    process.stdout.write(`caught-up ${status.checkpoint}\n`);
    clearInterval(timer);
  }
}, 20);
