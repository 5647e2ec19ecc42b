// Runs a projector against a real in-memory SQLite read store, event by event, as the runner does.
import { randomUUID } from 'node:crypto';
import type { DomainEvent, EventEnvelope } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { ProjectionRunner } from '#eventsourcing';
import type { Projector } from '#eventsourcing';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import type { Filter, StoredDocument } from '#read-store';

export async function projectionHarness(projector: Projector) {
  const readStore = new SqliteReadStore({ path: ':memory:' });
  const runner = new ProjectionRunner(new SqliteEventStore({ path: ':memory:' }), readStore, [projector], {
    owner: 'test',
  });
  const ref = { name: projector.name, generation: 1 };
  await readStore.prepareGeneration(ref, projector.collections);
  let position = 0;
  return {
    /** Wraps domain events in envelopes with increasing positions (or the given one, to replay). */
    envelope(
      event: DomainEvent,
      occurredAt = new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString(),
    ): EventEnvelope {
      position += 1;
      return {
        id: randomUUID(),
        type: event.type,
        data: event.data,
        streamId: 'test',
        revision: position - 1,
        position,
        metadata: {
          correlationId: 'c',
          causationId: null,
          actor: { kind: 'system', id: 't' },
          occurredAt,
          schemaVersion: 1,
        },
      };
    },
    apply: (...events: EventEnvelope[]) => runner.applyBatch(projector, ref, events),
    get: <T extends StoredDocument>(collection: string, id: string) =>
      readStore.readerAt<T>(collection, ref).get(id),
    find: <T extends StoredDocument>(collection: string, filter: Filter = {}) =>
      readStore.readerAt<T>(collection, ref).find(filter, { limit: 200 }),
    count: (collection: string) => readStore.readerAt(collection, ref).count(),
  };
}
