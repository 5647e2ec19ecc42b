// The relay's contract, run on every message-bus adapter (relay.int.spec.ts: in-process; relay.kafka.int.spec.ts:
// librdkafka's mock cluster): the real SQLite event and read stores, the real projection runner, the relay over the
// bus, and a consumer group on the other side. Nothing waits a fixed time: tests poll until what they expect has
// arrived (or the runner's checkpoint has reached the log's head), with a deadline only a failure reaches.
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { ProjectionRunner, processLeaseOwner } from '#eventsourcing';
import type { EventEnvelope } from '#kernel';
import type { BusMessage, MessageBus } from '#message-bus';
import { makeEvent, waitUntil } from '#testing/fixtures';
import { defineIntegrationEvents, integrationTopic, type IntegrationEvent } from './integration-event.js';
import { IntegrationEventRelay, INTEGRATION_EVENT_RELAY } from './relay.js';

const DEADLINE_MS = 20_000;

type ThingEvent =
  | { readonly type: 'ThingCreated'; readonly data: { thingId: string; spaceId: string; name: string } }
  | { readonly type: 'ThingSecretSet'; readonly data: { thingId: string; secret: string } }
  | { readonly type: 'ThingNoted'; readonly data: { thingId: string; note: string } };

/** A test context's map; each test gets its own entity, so its own topic. */
const thingMap = (entity: string) =>
  defineIntegrationEvents<ThingEvent>(entity, {
    ThingCreated: ({ data }) => ({
      fact: 'created',
      subject: { thingId: data.thingId, spaceId: data.spaceId },
      data: { name: data.name },
    }),
    // Published without the secret: the map decides what leaves, the relay adds nothing of the source's data.
    ThingSecretSet: ({ data }) => ({ fact: 'secret-set', subject: { thingId: data.thingId } }),
    ThingNoted: null,
  });

const fresh = (prefix: string): string => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 10)}`;

/** A bus whose publish number `failAt` fails (once), to show the checkpoint waits for the acknowledgement. */
class FlakyBus implements MessageBus {
  failAt: number | null = null;
  publishes = 0;
  constructor(private readonly inner: MessageBus) {}
  async publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    this.publishes += 1;
    if (this.failAt === this.publishes) {
      this.failAt = null;
      throw new Error('broker unavailable (test)');
    }
    await this.inner.publish(topic, messages);
  }
  consume: MessageBus['consume'] = (options) => this.inner.consume(options);
  close = (): Promise<void> => this.inner.close();
}

export function relayContract(name: string, openBus: () => Promise<MessageBus>): void {
  describe(`IntegrationEventRelay contract: ${name}`, () => {
    let events: SqliteEventStore;
    let reads: SqliteReadStore;
    let bus: MessageBus;
    const runners: ProjectionRunner[] = [];
    const consumers: { stop(): Promise<void> }[] = [];

    beforeEach(async () => {
      events = new SqliteEventStore({ path: ':memory:', pollIntervalMs: 10 });
      reads = new SqliteReadStore({ path: ':memory:', generationCacheMs: 0 });
      bus = await openBus();
    });
    afterEach(async () => {
      await Promise.all(runners.splice(0).map((runner) => runner.stop()));
      await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
      await bus.close();
    });

    const startRelay = (relayBus: MessageBus, entity: string): ProjectionRunner => {
      const runner = new ProjectionRunner(
        events,
        reads,
        [new IntegrationEventRelay(relayBus, [thingMap(entity)])],
        {
          owner: processLeaseOwner(fresh('host-')),
          batchSize: 4,
          leaseTtlMs: 2_000,
          maxBackoffMs: 50,
        },
      );
      runners.push(runner);
      runner.start();
      return runner;
    };

    const subscribe = async (entity: string): Promise<BusMessage[]> => {
      const received: BusMessage[] = [];
      consumers.push(
        await bus.consume({
          topic: integrationTopic(entity),
          group: fresh('consumer-'),
          handle: async (message) => void received.push(message),
        }),
      );
      return received;
    };

    /** Appends `count` things (created, secret set, noted) on streams of their own; returns the stored events. */
    const things = async (count: number): Promise<EventEnvelope[]> => {
      for (let i = 0; i < count; i++) {
        const thingId = fresh('thg_');
        await events.appendToStream(
          `thing-${thingId}`,
          [
            makeEvent('ThingCreated', { thingId, spaceId: 'spc_1', name: `thing ${i}` }),
            makeEvent('ThingSecretSet', { thingId, secret: 'sk-do-not-leak' }),
            makeEvent('ThingNoted', { thingId, note: 'internal' }),
          ],
          'no_stream',
        );
      }
      return events.readAll();
    };

    const headOf = (stored: readonly EventEnvelope[]): number => stored[stored.length - 1]!.position;
    const checkpointReached = (runner: ProjectionRunner, position: number) => () =>
      runner.status().some((s) => s.name === INTEGRATION_EVENT_RELAY && s.checkpoint >= position);
    const published = (stored: readonly EventEnvelope[]) => stored.filter((e) => e.type !== 'ThingNoted');

    it('publishes each mapped event keyed by its stream, carrying its id, in the versioned contract', async () => {
      const entity = fresh('thing');
      const received = await subscribe(entity);
      const stored = await things(5);
      const runner = startRelay(bus, entity);
      await waitUntil(checkpointReached(runner, headOf(stored)), DEADLINE_MS);
      const expected = published(stored);
      await waitUntil(() => received.length >= expected.length, DEADLINE_MS);

      expect(received.map((m) => m.id).sort()).toEqual(expected.map((e) => e.id).sort());
      for (const source of expected) {
        const message = received.find((m) => m.id === source.id)!;
        const data = source.data as { thingId: string; name?: string };
        expect(message.key).toBe(source.streamId);
        const value = message.value as IntegrationEvent;
        expect(message.type).toBe(value.type);
        expect(value).toEqual(
          source.type === 'ThingCreated'
            ? {
                id: source.id,
                type: `${entity}.created.v1`,
                version: 1,
                occurredAt: source.metadata.occurredAt,
                subject: { thingId: data.thingId, spaceId: 'spc_1' },
                correlationId: source.metadata.correlationId,
                data: { name: data.name },
              }
            : {
                id: source.id,
                type: `${entity}.secret-set.v1`,
                version: 1,
                occurredAt: source.metadata.occurredAt,
                subject: { thingId: data.thingId },
                correlationId: source.metadata.correlationId,
                data: {},
              },
        );
      }
      // One entity's events keep their order (the key is its stream).
      for (const key of new Set(received.map((m) => m.key))) {
        const order = expected.filter((e) => e.streamId === key).map((e) => e.id);
        expect(received.filter((m) => m.key === key).map((m) => m.id)).toEqual(order);
      }
      expect(JSON.stringify(received)).not.toContain('sk-do-not-leak');
      expect(JSON.stringify(received)).not.toContain('internal');
    });

    it('moves its checkpoint only after the bus acknowledged: a failed publish is sent again, nothing is lost', async () => {
      const entity = fresh('thing');
      const received = await subscribe(entity);
      const stored = await things(4);
      const flaky = new FlakyBus(bus);
      flaky.failAt = 3; // within the first batch (4 events): the two before it were acknowledged, not checkpointed
      const runner = startRelay(flaky, entity);
      await waitUntil(checkpointReached(runner, headOf(stored)), DEADLINE_MS);
      const expected = published(stored);
      await waitUntil(() => new Set(received.map((m) => m.id)).size >= expected.length, DEADLINE_MS);

      expect([...new Set(received.map((m) => m.id))].sort()).toEqual(expected.map((e) => e.id).sort());
      // The batch was sent again from the checkpoint: what was acknowledged before the failure arrives twice, alike.
      expect(flaky.publishes).toBeGreaterThan(expected.length);
      const first = expected[0]!;
      await waitUntil(() => received.filter((m) => m.id === first.id).length === 2, DEADLINE_MS);
      const [once, twice] = received.filter((m) => m.id === first.id);
      expect(twice).toEqual(once);
    });

    it('carries on from its checkpoint after a restart, without publishing again what it had committed', async () => {
      const entity = fresh('thing');
      const received = await subscribe(entity);
      const before = await things(3);
      const first = startRelay(bus, entity);
      await waitUntil(checkpointReached(first, headOf(before)), DEADLINE_MS);
      await first.stop();
      runners.splice(runners.indexOf(first), 1);

      const all = await things(3);
      const second = startRelay(bus, entity);
      await waitUntil(checkpointReached(second, headOf(all)), DEADLINE_MS);
      const expected = published(all);
      await waitUntil(() => received.length >= expected.length, DEADLINE_MS);
      expect(received.map((m) => m.id).sort()).toEqual(expected.map((e) => e.id).sort());
    });
  });
}
