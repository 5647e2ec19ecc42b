// An HTTP request sent with an Idempotency-Key: one stream per caller's key and key value, recording that the request
// started, and how it ended (its status and answer, secrets taken out, for a replay; or its failure, which a retry may
// run again). The request is named by its fingerprint (method, path and body), never by its content.
import { sha256, type DomainEvent } from '#kernel';

export type IdempotencyEvent =
  | DomainEvent<'IdempotentRequestStarted', { readonly fingerprint: string; readonly startedAt: string }>
  | DomainEvent<
      'IdempotentRequestCompleted',
      { readonly fingerprint: string; readonly status: number; readonly body: unknown }
    >
  | DomainEvent<'IdempotentRequestFailed', { readonly fingerprint: string; readonly status: number }>;

export type IdempotencyState =
  | { readonly status: 'absent' }
  | { readonly status: 'started'; readonly fingerprint: string; readonly startedAt: string }
  | {
      readonly status: 'completed';
      readonly fingerprint: string;
      readonly answer: { readonly status: number; readonly body: unknown };
    }
  | { readonly status: 'failed'; readonly fingerprint: string };

/** The stream of a key: the caller's API key and the key's value, hashed (a client's key may be anything printable). */
export const idempotencyStreamId = (apiKeyId: string, idempotencyKey: string): string =>
  `idempotency-${sha256(`${apiKeyId}\u0000${idempotencyKey}`).slice(0, 40)}`;

export const initialIdempotencyState = (): IdempotencyState => ({ status: 'absent' });

export const evolveIdempotency = (_state: IdempotencyState, event: IdempotencyEvent): IdempotencyState => {
  switch (event.type) {
    case 'IdempotentRequestStarted':
      return { status: 'started', fingerprint: event.data.fingerprint, startedAt: event.data.startedAt };
    case 'IdempotentRequestCompleted':
      return {
        status: 'completed',
        fingerprint: event.data.fingerprint,
        answer: { status: event.data.status, body: event.data.body },
      };
    case 'IdempotentRequestFailed':
      return { status: 'failed', fingerprint: event.data.fingerprint };
  }
};
