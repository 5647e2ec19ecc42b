// Records model calls off the hot path: a call is queued in memory and sent with others of its stream (key and day)
// in one RecordModelCalls command a moment later (its handler appends them with the expected revision and event ids
// derived from the call ids, so a retried batch never records a call twice). A failed batch is kept and retried;
// shutdown flushes what is queued.
import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { CommandBus } from '@nestjs/cqrs';
import {
  RecordModelCalls,
  type RecordedCall,
} from './commands/record-model-calls/record-model-calls.command.js';
import { addCall, ZERO_USAGE, type UsageTotals } from './usage.decider.js';
import { usageStreamId, type ModelCall } from './usage.events.js';
import { LOGGER } from '#kernel';

/** A call waiting to be recorded, with the correlation id of the request that made it. */
interface QueuedCall extends RecordedCall {
  readonly streamId: string;
}

const FLUSH_DELAY_MS = 200;
const FLUSH_AT = 1_000;
const RETRY_DELAY_MS = 1_000;

@Injectable()
export class UsageRecorder implements BeforeApplicationShutdown, OnApplicationShutdown {
  private queue: QueuedCall[] = [];
  /** Calls queued or being appended, per API key: limits add them to what the log already holds. */
  private readonly unflushed = new Map<string, UsageTotals>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly listeners: ((call: ModelCall) => void)[] = [];

  constructor(
    private readonly commands: CommandBus,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Calls `listener` for each call as it is recorded (metrics). */
  onRecorded(listener: (call: ModelCall) => void): void {
    this.listeners.push(listener);
  }

  /** Calls waiting for their batch. */
  get queued(): number {
    return this.queue.length;
  }

  record(call: ModelCall, correlationId: string): void {
    for (const listener of this.listeners) listener(call);
    this.queue.push({
      call,
      correlationId,
      streamId: usageStreamId(call.apiKeyId, call.startedAt.slice(0, 10)),
    });
    this.unflushed.set(call.apiKeyId, addCall(this.unflushed.get(call.apiKeyId) ?? ZERO_USAGE, call));
    if (this.queue.length >= FLUSH_AT) void this.flush();
    else this.schedule(FLUSH_DELAY_MS);
  }

  /** Usage of a key not yet in the log. */
  pendingFor(apiKeyId: string): UsageTotals {
    return this.unflushed.get(apiKeyId) ?? ZERO_USAGE;
  }

  /** Appends everything queued; resolves when it is in the log (or has failed and is queued again). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.appendQueued());
    return this.flushing;
  }

  /** Shutdown, first step: what is queued goes to the log while requests in flight finish. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /**
   * Shutdown, last step: runs after the HTTP server has closed (so no call can still end) and before the platform
   * closes the event store (global modules shut down last).
   */
  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A failing store gets a few quick attempts; what still fails is logged (never silently dropped).
    for (let attempt = 0; attempt < 3 && this.queue.length > 0; attempt++) await this.flush();
    await this.flushing;
    if (this.queue.length > 0)
      this.logger.error({ calls: this.queue.length }, 'usage records could not be appended before shutdown');
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private async appendQueued(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    const byStream = new Map<string, QueuedCall[]>();
    for (const queued of batch) {
      const calls = byStream.get(queued.streamId);
      if (calls) calls.push(queued);
      else byStream.set(queued.streamId, [queued]);
    }
    const failed: QueuedCall[] = [];
    await Promise.all(
      [...byStream].map(async ([streamId, calls]) => {
        try {
          await this.appendStream(calls);
          for (const { call } of calls) this.settle(call);
        } catch (error) {
          this.logger.error({ err: error, streamId, calls: calls.length }, 'usage append failed; will retry');
          failed.push(...calls);
        }
      }),
    );
    if (failed.length > 0) {
      this.queue = [...failed, ...this.queue];
      if (!this.closed) this.schedule(RETRY_DELAY_MS);
    }
  }

  private async appendStream(calls: readonly QueuedCall[]): Promise<void> {
    const { call, correlationId } = calls[0]!;
    await this.commands.execute(
      new RecordModelCalls(
        call.apiKeyId,
        call.startedAt.slice(0, 10),
        calls.map(({ call, correlationId }) => ({ call, correlationId })),
        { actor: { kind: 'apiKey', id: call.apiKeyId }, correlationId, now: () => new Date() },
      ),
    );
  }

  private settle(call: ModelCall): void {
    const pending = this.unflushed.get(call.apiKeyId);
    if (!pending) return;
    const left: UsageTotals = {
      calls: pending.calls - 1,
      tokens: pending.tokens - call.inputTokens - call.outputTokens,
      inputTokens: pending.inputTokens - call.inputTokens,
      cachedInputTokens: pending.cachedInputTokens - call.cachedInputTokens,
      outputTokens: pending.outputTokens - call.outputTokens,
      costUsd: pending.costUsd - call.costUsd,
      billableCostUsd: pending.billableCostUsd - (call.isIncludedUsage ? 0 : call.costUsd),
    };
    if (left.calls <= 0) this.unflushed.delete(call.apiKeyId);
    else this.unflushed.set(call.apiKeyId, left);
  }
}
