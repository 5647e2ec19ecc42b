// The stored Responses answers of the compatible API: what `store: true` (the default) keeps, so a client continues
// with `previous_response_id` or item references, reads an answer back (GET) and deletes it. Each is its person's
// content: sealed with a data key of its own (filed under the person), readable only by the person whose key made it
// (anyone else is told it does not exist), expiring after RESPONSES_RETENTION_DAYS (then its key is destroyed, by the
// sweeper), erased at once by DELETE.
import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';
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

/** How long an answered response waits for others to share its batch, at most; and how many end the wait. */
const GATHER_MS = 10;
const WRITE_AT = 64;

@Injectable()
export class StoredResponses implements BeforeApplicationShutdown, OnApplicationShutdown {
  /** The responses of this process being written, by id. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Responses answered and waiting for their batch. */
  private queue: QueuedWrite[] = [];
  /** The batch being written, until it settles. */
  private writing: Promise<void> | null = null;
  /** Until the gathering time ends (or enough are queued) to write the queued batch. */
  private timer: NodeJS.Timeout | null = null;
  /** A `find` waits for a queued response: the next batch is written without gathering. */
  private waited = false;

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** The person's stored response; null when unknown, another's, deleted, expired or erased. */
  async find(userId: string, responseId: string, now = Date.now()): Promise<StoredResponse | null> {
    if (!RESPONSE_ID.test(responseId)) return null;
    await this.written(responseId);
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
   * Stores the response without holding up its answer: the write runs after the answer is sent, gathered with the
   * responses answered in the next few milliseconds (their data keys in one key-store commit, then their events in one
   * log commit: each commit syncs its file, and a sync costs the same for one response as for sixty-four). Until it is
   * in the log, this process's `find` waits for it and has the gathered batch written at once, so a client that
   * continues the response at once finds it; another api process finds it once written (milliseconds later). Settles
   * when written; a failure is the returned promise's (the caller logs it).
   */
  store(caller: Caller, record: NewStoredResponse): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.queue.push({ caller, record, resolve, reject });
    }).finally(() => this.pending.delete(record.responseId));
    this.pending.set(record.responseId, written);
    if (this.queue.length >= WRITE_AT) this.writeSoon();
    else this.timer ??= setTimeout(() => this.writeSoon(), GATHER_MS);
    return written;
  }

  /** Once this process's write of the response has settled: someone waits, so its batch is written without gathering. */
  private async written(responseId: string): Promise<void> {
    const pending = this.pending.get(responseId);
    if (!pending) return;
    this.waited = true;
    this.writeSoon();
    await pending.catch(() => undefined);
  }

  /** Shutdown, first step: what is gathered goes to the log while the requests in flight finish. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  /** Shutdown, last step: after the HTTP server has closed, what its last answers queued (before the log closes). */
  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  /** Writes what is queued now and resolves once nothing is queued or being written. */
  private async drain(): Promise<void> {
    for (;;) {
      this.writeSoon();
      if (!this.writing) return;
      await this.writing;
    }
  }

  /** Starts writing what is queued, unless a batch is being written (what it leaves queued is written after it). */
  private writeSoon(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.writeQueued().finally(() => {
      this.writing = null;
      if (this.queue.length >= WRITE_AT || this.waited) this.writeSoon();
      else if (this.queue.length > 0) this.timer ??= setTimeout(() => this.writeSoon(), GATHER_MS);
    });
  }

  /** Writes what is queued, as one batch. */
  private async writeQueued(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.waited = false;
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
    await this.written(responseId);
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
