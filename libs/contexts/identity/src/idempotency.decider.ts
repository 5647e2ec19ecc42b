// The Idempotency-Key's commands and the pure decision over each: a key names one request (another body is 422); a
// request runs once at a time (a retry while it runs is 409, until it has run IDEMPOTENCY_IN_FLIGHT_MS and is taken
// for dead); a completed one is replayed, not run again (start decides nothing); a failed one may run again.
import { ConflictError, PlatformError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveIdempotency,
  initialIdempotencyState,
  type IdempotencyEvent,
  type IdempotencyState,
} from './idempotency.events.js';

export type IdempotencyCommand =
  | {
      readonly type: 'StartIdempotentRequest';
      readonly fingerprint: string;
      readonly now: string;
      /** How long a started request counts as running. */
      readonly inFlightMs: number;
    }
  | {
      readonly type: 'FinishIdempotentRequest';
      readonly fingerprint: string;
      readonly outcome:
        | { readonly type: 'completed'; readonly status: number; readonly body: unknown }
        | { readonly type: 'failed'; readonly status: number };
    };

type IdempotencyOf<Type extends IdempotencyCommand['type']> = Extract<
  IdempotencyCommand,
  { readonly type: Type }
>;

export const keyInUse = () =>
  new ConflictError('idempotency_key_in_use', 'a request with this Idempotency-Key is still in progress');

function startIdempotentRequest(
  { fingerprint, now, inFlightMs }: IdempotencyOf<'StartIdempotentRequest'>,
  state: IdempotencyState,
): IdempotencyEvent[] {
  if (state.status !== 'absent' && state.fingerprint !== fingerprint)
    throw new PlatformError(
      'unprocessable',
      'idempotency_key_reused',
      'this Idempotency-Key was used with another request',
      'Idempotency-Key',
    );
  if (state.status === 'completed') return [];
  if (state.status === 'started' && Date.parse(now) - Date.parse(state.startedAt) < inFlightMs)
    throw keyInUse();
  return [{ type: 'IdempotentRequestStarted', data: { fingerprint, startedAt: now } }];
}

function finishIdempotentRequest(
  { fingerprint, outcome }: IdempotencyOf<'FinishIdempotentRequest'>,
  state: IdempotencyState,
): IdempotencyEvent[] {
  // Only the run that started it finishes it: a request taken for dead and started again is the new run's.
  if (state.status !== 'started' || state.fingerprint !== fingerprint) return [];
  return outcome.type === 'completed'
    ? [
        {
          type: 'IdempotentRequestCompleted',
          data: { fingerprint, status: outcome.status, body: outcome.body },
        },
      ]
    : [{ type: 'IdempotentRequestFailed', data: { fingerprint, status: outcome.status } }];
}

export const idempotencyDecider: Decider<IdempotencyState, IdempotencyCommand, IdempotencyEvent> = {
  initialState: initialIdempotencyState,
  evolve: evolveIdempotency,
  decide: decideByType<IdempotencyState, IdempotencyCommand, IdempotencyEvent>({
    StartIdempotentRequest: startIdempotentRequest,
    FinishIdempotentRequest: finishIdempotentRequest,
  }),
};
