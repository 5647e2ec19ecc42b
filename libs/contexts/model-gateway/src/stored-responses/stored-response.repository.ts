// The stored Responses answers of the compatible API: what `store: true` (the default) keeps, so a client continues
// with `previous_response_id` or item references, reads an answer back (GET) and deletes it. Each is its person's
// content: sealed with a data key of its own (filed under the person), readable only by the person whose key made it
// (anyone else is told it does not exist), expiring after RESPONSES_RETENTION_DAYS (then its key is destroyed, by the
// sweeper), erased at once by DELETE.
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, SYSTEM_ACTOR, type PlatformConfig } from '#kernel';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore, type Sealer } from '#key-store';
import { commandContext, type Caller } from '#access';
import { storedResponseDecider } from './stored-response.decider.js';
import { storedResponseStreamId, storedResponsesKeyGroup } from './stored-response.events.js';

/** What OpenAI's response ids look like here: `resp_` and up to 64 letters and digits. */
export const RESPONSE_ID = /^resp_[A-Za-z0-9]{1,64}$/;

export type ResponseItem = Record<string, unknown> & { readonly type?: string; readonly id?: string };

export interface StoredResponse {
  /** The items it was answered from (the responses it continued, then its own input), each with its id. */
  readonly input: ResponseItem[];
  /** The `response` object as it was answered. */
  readonly response: Record<string, unknown> & { readonly output: ResponseItem[] };
}

export interface NewStoredResponse {
  readonly responseId: string;
  readonly model: string;
  readonly previousResponseId: string | null;
  readonly input: readonly ResponseItem[];
  readonly response: Record<string, unknown>;
}

interface QueuedWrite {
  readonly caller: Caller;
  readonly record: NewStoredResponse;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

@Injectable()
export class StoredResponses {
  /** The responses of this process being written, by id. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Responses answered and waiting for the batch being written to finish. */
  private queue: QueuedWrite[] = [];
  private writing = false;

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** The person's stored response; null when unknown, another's, deleted, expired or erased. */
  async find(userId: string, responseId: string, now = Date.now()): Promise<StoredResponse | null> {
    if (!RESPONSE_ID.test(responseId)) return null;
    await this.pending.get(responseId)?.catch(() => undefined);
    const { state } = await this.aggregates.load(storedResponseStreamId(responseId), storedResponseDecider);
    const stored = state.stored;
    if (!stored || stored.userId !== userId || Date.parse(stored.expiresAt) <= now) return null;
    const [input, response] = await this.cipher.openMany([stored.input, stored.response]);
    if (input === null || input === undefined || response === null || response === undefined) return null;
    return {
      input: JSON.parse(input) as ResponseItem[],
      response: JSON.parse(response) as StoredResponse['response'],
    };
  }

  /**
   * Stores the response without holding up its answer: the write runs after the answer is sent, with the other
   * responses answered meanwhile (their data keys in one key-store commit, then an event each). Until it is in the
   * log, this process's `find` waits for it, so a client that continues the response at once finds it; another api
   * process finds it once written (milliseconds later). Settles when written; a failure is the returned promise's (the
   * caller logs it).
   */
  store(caller: Caller, record: NewStoredResponse): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.queue.push({ caller, record, resolve, reject });
    }).finally(() => this.pending.delete(record.responseId));
    this.pending.set(record.responseId, written);
    if (!this.writing) {
      this.writing = true;
      setImmediate(() => void this.writeQueued());
    }
    return written;
  }

  /** Writes what is queued, then what was queued meanwhile, until nothing is left: one batch at a time. */
  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        const sealer = await this.cipher.sealerOf(
          batch.map(({ caller, record }) => ({
            keyId: record.responseId,
            group: storedResponsesKeyGroup(caller.userId),
          })),
        );
        await Promise.all(
          batch.map((write) =>
            this.append(write.caller, write.record, sealer).then(write.resolve, write.reject),
          ),
        );
      } catch (error) {
        for (const write of batch) write.reject(error);
      }
    }
    this.writing = false;
  }

  private async append(caller: Caller, record: NewStoredResponse, sealer: Sealer): Promise<void> {
    const { responseId } = record;
    // A response id is fresh and random: its stream is new, nothing to read before appending.
    await this.aggregates.create(
      storedResponseStreamId(responseId),
      storedResponseDecider,
      {
        type: 'StoreResponse',
        responseId,
        userId: caller.userId,
        apiKeyId: caller.apiKey.id,
        model: record.model,
        previousResponseId: record.previousResponseId,
        input: sealer.seal(responseId, JSON.stringify(record.input)),
        response: sealer.seal(responseId, JSON.stringify(record.response)),
        expiresAt: new Date(Date.now() + this.config.responsesRetentionMs).toISOString(),
      },
      commandContext(caller),
    );
  }

  /** Deletes the person's stored response, erasing its words; false when there is none of theirs to delete. */
  async delete(caller: Caller, responseId: string): Promise<boolean> {
    if (!RESPONSE_ID.test(responseId)) return false;
    const { state } = await this.aggregates.load(storedResponseStreamId(responseId), storedResponseDecider);
    if (state.stored?.userId !== caller.userId) return false;
    return this.erase(responseId, 'deleted', commandContext(caller));
  }

  /** Erases an expired response (the sweeper's). */
  expire(responseId: string): Promise<boolean> {
    return this.erase(responseId, 'expired', {
      actor: SYSTEM_ACTOR,
      correlationId: `responses-expiry-${responseId}`,
      now: () => new Date(),
    });
  }

  private async erase(
    responseId: string,
    reason: 'deleted' | 'expired',
    context: CommandContext,
  ): Promise<boolean> {
    const { events } = await this.aggregates.decide(
      storedResponseStreamId(responseId),
      storedResponseDecider,
      { type: 'DeleteResponse', responseId, reason },
      context,
    );
    // The erasure process destroys it too, from the log: this makes it immediate.
    await this.keys.destroy(responseId);
    return events.length > 0;
  }
}
