import { deciderSpec } from '#testing/decider-spec';
import type { IdempotencyEvent } from './idempotency.events.js';
import { idempotencyDecider } from './idempotency.decider.js';

const given = deciderSpec(idempotencyDecider);
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 18, 10, 0, seconds)).toISOString();
const start = (fingerprint: string, seconds: number) =>
  ({ type: 'StartIdempotentRequest', fingerprint, now: at(seconds), inFlightMs: 30_000 }) as const;
const started = (fingerprint: string, seconds: number): IdempotencyEvent => ({
  type: 'IdempotentRequestStarted',
  data: { fingerprint, startedAt: at(seconds) },
});
const completed: IdempotencyEvent = {
  type: 'IdempotentRequestCompleted',
  data: { fingerprint: 'f1', status: 201, body: { id: 'agt_1' } },
};
const failed: IdempotencyEvent = {
  type: 'IdempotentRequestFailed',
  data: { fingerprint: 'f1', status: 503 },
};

describe('a request sent with an Idempotency-Key (decider)', () => {
  it('starts the first time the key is used', () =>
    given()
      .when(start('f1', 0))
      .then([started('f1', 0)]));

  it('refuses the key for another request (422), whatever became of the first', () => {
    given(started('f1', 0)).when(start('f2', 1)).thenThrows('idempotency_key_reused');
    given(started('f1', 0), completed).when(start('f2', 1)).thenThrows('idempotency_key_reused');
  });

  it('refuses a retry while the request runs (409), and starts it again once it is taken for dead', () => {
    given(started('f1', 0)).when(start('f1', 29)).thenThrows('idempotency_key_in_use');
    given(started('f1', 0))
      .when(start('f1', 30))
      .then([started('f1', 30)]);
  });

  it('starts nothing for a completed request (it is replayed), and runs a failed one again', () => {
    given(started('f1', 0), completed).when(start('f1', 1)).then([]);
    given(started('f1', 0), failed)
      .when(start('f1', 1))
      .then([started('f1', 1)]);
  });

  it('records how the running request ended, once', () => {
    const finish = (
      outcome: { type: 'completed'; status: number; body: unknown } | { type: 'failed'; status: number },
    ) => ({ type: 'FinishIdempotentRequest', fingerprint: 'f1', outcome }) as const;
    given(started('f1', 0))
      .when(finish({ type: 'completed', status: 201, body: { id: 'agt_1' } }))
      .then([completed]);
    given(started('f1', 0))
      .when(finish({ type: 'failed', status: 503 }))
      .then([failed]);
    given(started('f1', 0), completed)
      .when(finish({ type: 'failed', status: 503 }))
      .then([]);
    given()
      .when(finish({ type: 'failed', status: 503 }))
      .then([]);
  });

  it('keeps the answer a replay shows', () => {
    const state = [started('f1', 0), completed].reduce(
      idempotencyDecider.evolve,
      idempotencyDecider.initialState(),
    );
    expect(state).toEqual({
      status: 'completed',
      fingerprint: 'f1',
      answer: { status: 201, body: { id: 'agt_1' } },
    });
  });
});
