import type { EventEnvelope } from '#kernel';
import type { EventStore } from '#event-store';
import { foldAsOf, foldStreamsAsOf } from './as-of.js';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
const event = (second: number, value: string): EventEnvelope => ({
  id: `e${second}`,
  type: 'Set',
  data: { value },
  streamId: 's-1',
  revision: second,
  position: second,
  metadata: {
    correlationId: 'c',
    causationId: null,
    actor: { kind: 'system', id: 'platform' },
    occurredAt: at(second).toISOString(),
    schemaVersion: 1,
  },
});

const evolve = (state: string[], e: { type: string; data: unknown }) => [
  ...state,
  (e.data as { value: string }).value,
];

describe('foldAsOf', () => {
  const events = [event(1, 'a'), event(5, 'b'), event(9, 'c')];

  it('applies the events up to the time, inclusive', () => {
    expect(foldAsOf(events, at(5), [], evolve)).toEqual({
      state: ['a', 'b'],
      firstAt: at(1).toISOString(),
      lastAt: at(5).toISOString(),
    });
    expect(foldAsOf(events, at(8), [], evolve).state).toEqual(['a', 'b']);
  });

  it('before the first event the state is the initial one', () => {
    expect(foldAsOf(events, at(0), [], evolve)).toEqual({ state: [], firstAt: null, lastAt: null });
  });
});

describe('foldStreamsAsOf', () => {
  const inStream = (streamId: string, second: number, value: string, type = 'Set'): EventEnvelope => ({
    ...event(second, value),
    streamId,
    type,
  });
  const log = [
    inStream('doc-1', 1, 'a'),
    inStream('other-1', 2, 'x'),
    inStream('doc-2', 3, 'b'),
    inStream('doc-1', 4, 'c'),
    inStream('doc-1', 5, 'ignored', 'Unknown'),
    inStream('doc-2', 9, 'late'),
  ];
  const store = {
    readAll: async ({ after = 0 }: { after?: number }) =>
      log.filter((entry) => entry.position > after).slice(0, 1000),
  } as unknown as EventStore;

  it('folds every stream of the prefix and types up to the time, across the whole log', async () => {
    const folded = await foldStreamsAsOf(
      store,
      { streamPrefix: 'doc-', eventTypes: ['Set'] },
      at(5),
      () => [] as string[],
      evolve,
    );
    expect(Object.fromEntries([...folded].map(([id, { state, lastAt }]) => [id, { state, lastAt }]))).toEqual(
      {
        'doc-1': { state: ['a', 'c'], lastAt: at(4).toISOString() },
        'doc-2': { state: ['b'], lastAt: at(3).toISOString() },
      },
    );
  });

  it('leaves out streams with no event up to the time', async () => {
    const folded = await foldStreamsAsOf(
      store,
      { streamPrefix: 'doc-', eventTypes: ['Set'] },
      at(0),
      () => [],
      evolve,
    );
    expect(folded.size).toBe(0);
  });
});
