import type { DomainEvent, EventEnvelope } from '#kernel';
import { defineProjector, eventHandlers } from './projector.js';

type Event =
  | DomainEvent<'Opened', { readonly id: string }>
  | DomainEvent<'Renamed', { readonly id: string; readonly name: string }>
  | DomainEvent<'Audited', { readonly id: string }>;

const envelope = (type: string, data: unknown): EventEnvelope => ({
  id: 'e1',
  type,
  data,
  streamId: 's',
  revision: 0,
  position: 1,
  metadata: {
    correlationId: 'c',
    causationId: null,
    actor: { kind: 'system', id: 'test' },
    occurredAt: '2026-01-01T00:00:00.000Z',
    schemaVersion: 1,
  },
});

describe('defineProjector / eventHandlers', () => {
  const projector = defineProjector<Event>({
    name: 'things',
    version: 1,
    collections: [{ name: 'things' }],
    on: {
      Opened: ({ data }) => [{ kind: 'upsert', collection: 'things', doc: { id: data.id } }],
      Renamed: ({ data }) => [{ kind: 'patch', collection: 'things', id: data.id, set: { name: data.name } }],
      Audited: null,
    },
  });
  const context = {
    get: () => Promise.resolve(null),
    find: () => Promise.resolve({ data: [], nextCursor: null }),
  };

  it('reads the event types that have a handler, never those marked null', () => {
    expect(projector.eventTypes).toEqual(['Opened', 'Renamed']);
  });

  it('dispatches each event to its handler with its typed data', async () => {
    expect(await projector.project(envelope('Renamed', { id: 't1', name: 'New' }), context)).toEqual([
      { kind: 'patch', collection: 'things', id: 't1', set: { name: 'New' } },
    ]);
  });

  it('writes nothing for an event it does not read', async () => {
    expect(
      await eventHandlers<Event>({ Opened: () => [], Renamed: () => [], Audited: null }).project(
        envelope('Audited', { id: 't1' }),
        context,
      ),
    ).toEqual([]);
  });
});
