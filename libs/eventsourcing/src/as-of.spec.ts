import type { EventEnvelope } from '#kernel';
import { foldAsOf } from './as-of.js';

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
