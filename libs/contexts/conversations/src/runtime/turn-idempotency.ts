// The idempotency of a turn (Idempotency-Key on POST …/conversation): the turn's ids derive from the caller, the Agent
// and the key, so a retry names the same conversation and messages; a retry finds the complete answer and replays it,
// the same key with another message is 422, a turn that ended incomplete is answered again under the next answer id,
// and a retry while the first is still running is 409 — in any api process: the in-flight marker is a lease in the
// read store every process shares, renewed while the turn runs and expiring IDEMPOTENCY_IN_FLIGHT_MS after a crash.
// Why a turn does not go through the IdempotencyInterceptor's record (idempotency.decider.ts), the one every other
// keyed POST uses — it reads its key the same way (idempotencyKeyOf) and its writes are commands through the kit, but:
// its answer is conversation content, sealed under the conversation's key and erased with it, so it is replayed from
// the conversation, never copied into a record that would outlive the erasure; it is streamed, so there is no one
// body to record; a long answer holds its key by a renewed lease, where the record's in-flight window is fixed; and an
// answer that ended incomplete is answered again, not replayed.
import { Inject, Injectable } from '@nestjs/common';
import { ConflictError, newId, PLATFORM_CONFIG, PlatformError, sha256, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import type { ConversationPlace } from './places/conversation-place.js';
import { NO_USAGE, type TurnAnswer } from './turn-answer.js';

/** Answers a keyed turn may be retried for after ending incomplete. */
const MAX_ATTEMPTS = 10;

export interface TurnIds {
  /** '' for a turn without a key. */
  readonly seed: string;
  readonly conversationId: string;
  readonly userMessageId: string;
  readonly answerId: string;
}

export interface TurnKey {
  readonly userId: string;
  readonly agentId: string;
  readonly conversationId?: string | undefined;
  readonly idempotencyKey?: string | undefined;
}

const derivedId = (seed: string, prefix: string, what: string): string =>
  `${prefix}_${sha256(`${seed}:${what}`).slice(0, 32)}`;

/** The lease that marks a keyed turn as running. */
export const inFlightLease = (seed: string) => `turn-in-flight-${seed}`;

@Injectable()
export class TurnIdempotency {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** Ids of the turn: random, or derived from the Idempotency-Key. */
  ids(key: TurnKey): TurnIds {
    if (!key.idempotencyKey)
      return {
        seed: '',
        conversationId: key.conversationId ?? newId('cnv'),
        userMessageId: newId('msg'),
        answerId: newId('msg'),
      };
    const seed = sha256([key.userId, key.agentId, key.idempotencyKey].join('\u0000'));
    return {
      seed,
      conversationId: key.conversationId ?? derivedId(seed, 'cnv', 'conversation'),
      userMessageId: derivedId(seed, 'msg', 'user'),
      answerId: derivedId(seed, 'msg', 'answer'),
    };
  }

  /**
   * What a keyed retry finds: the turn's complete answer is replayed; the same key with another message is 422; a
   * turn that ended incomplete (the model failed, a limit refused it, the client left) is answered again under the
   * next answer id, so the retry completes it instead of replaying an empty answer.
   */
  async prior(
    place: ConversationPlace,
    ids: TurnIds,
    content: string,
  ): Promise<{ readonly replay: TurnAnswer } | { readonly answerId: string }> {
    const record = place.record();
    if (!record) return { answerId: ids.answerId };
    const question = await place.message(ids.userMessageId);
    if (!question) return { answerId: ids.answerId };
    if (question.content !== null && question.content !== content)
      throw new PlatformError(
        'unprocessable',
        'idempotency_key_reused',
        'this Idempotency-Key was used for another message; use a new key for a new turn',
        'Idempotency-Key',
      );
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const answerId = attempt === 0 ? ids.answerId : derivedId(ids.seed, 'msg', `answer:${attempt}`);
      const answer = await place.message(answerId);
      if (!answer) return { answerId };
      if (answer.status !== 'complete') continue;
      return {
        replay: {
          conversationId: record.id,
          created: false,
          replayed: true,
          visibility: record.visibility,
          userMessage: { id: question.id, createdAt: question.createdAt },
          message: {
            id: answer.id,
            role: 'assistant',
            content: answer.content ?? '',
            citations: answer.citations,
            model: answer.model ?? '',
            finishReason: answer.finishReason,
            status: answer.status,
            usage: answer.usage ?? NO_USAGE,
            createdAt: answer.createdAt,
          },
        },
      };
    }
    throw new ConflictError(
      'idempotency_attempts_exhausted',
      `this turn failed ${MAX_ATTEMPTS} times under this Idempotency-Key; send it with a new key`,
    );
  }

  /**
   * Marks the keyed turn as running until `release` (409 `idempotency_in_flight` when it already is, in any process).
   * The mark is renewed while the turn runs, so a long answer keeps it; a process that dies leaves one that expires.
   */
  async claim(ids: TurnIds): Promise<() => Promise<void>> {
    const name = inFlightLease(ids.seed);
    const owner = newId('turn');
    const ttl = this.config.idempotencyInFlightMs;
    if (!(await this.readStore.acquireLease(name, owner, ttl)))
      throw new ConflictError(
        'idempotency_in_flight',
        'a request with this Idempotency-Key is still running',
      );
    let renewing: Promise<unknown> = Promise.resolve();
    const renewal = setInterval(
      () => (renewing = this.readStore.acquireLease(name, owner, ttl).catch(() => undefined)),
      Math.max(50, Math.floor(ttl / 3)),
    );
    renewal.unref();
    return async () => {
      clearInterval(renewal);
      // A renewal under way would take the lease again after its release.
      await renewing;
      await this.readStore.releaseLease(name, owner).catch(() => undefined);
    };
  }
}
