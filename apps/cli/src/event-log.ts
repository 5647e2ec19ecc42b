// `events tail` and `events stream`: the global log and an entity's history, read straight from the event store
// (the only source of truth), so they answer even when a projection is behind or broken.
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, type EventEnvelope, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { agentStreamId } from '#agents';
import { spaceStreamId } from '#spaces';
import { userStreamId, apiKeyStreamId } from '#identity';
import { historyLine, logLine } from './format.js';
import { CLI_OUTPUT, CliError, type CliOutput } from './output.js';

export interface TailOptions {
  /** Print the events after this position (exclusive, like a checkpoint: 0 is the start of the log). */
  readonly from?: number;
  /** At most this many events before following: the last ones of the log, or the first ones after `from`. */
  readonly limit?: number;
  /** Keep printing new events until `signal` aborts. */
  readonly follow?: boolean;
  readonly signal?: AbortSignal;
}

export interface HistoryOptions {
  /** Raw envelopes as JSON lines, for tooling. */
  readonly json?: boolean;
}

export const DEFAULT_TAIL = 20;
const PAGE = 1000;

const ENTITY_STREAMS: readonly (readonly [string, (id: string) => string])[] = [
  ['agt_', agentStreamId],
  ['spc_', spaceStreamId],
  ['usr_', userStreamId],
  ['key_', apiKeyStreamId],
];

/** A full stream id as given, or the stream of a bare entity id (`spc_…` → `space-spc_…`). */
export function streamIdOf(input: string): string {
  const id = input.trim();
  if (!id) throw new CliError('a stream id or an entity id is required');
  const entity = ENTITY_STREAMS.find(([prefix]) => id.startsWith(prefix));
  return entity ? entity[1](id) : id;
}

@Injectable()
export class EventLog {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {}

  async tail(options: TailOptions = {}): Promise<void> {
    let last: number;
    if (options.from !== undefined) {
      last = await this.printAfter(options.from, options.limit ?? Number.POSITIVE_INFINITY);
    } else {
      const head = await this.eventStore.headPosition();
      const events = await this.lastEvents(options.limit ?? DEFAULT_TAIL);
      for (const event of events) this.output.line(logLine(event));
      last = events.at(-1)?.position ?? head;
    }
    if (options.follow) await this.follow(last, options.signal);
  }

  async history(idOrStream: string, options: HistoryOptions = {}): Promise<void> {
    const streamId = streamIdOf(idOrStream);
    const events = await this.eventStore.readStream(streamId);
    if (events.length === 0)
      throw new CliError(
        `no events in stream '${streamId}' (pass a stream id such as space-spc_…, or an id starting with ` +
          `${ENTITY_STREAMS.map(([prefix]) => prefix).join(', ')})`,
      );
    if (options.json) {
      for (const event of events) this.output.line(JSON.stringify(event));
      return;
    }
    this.output.line(`${streamId}: ${events.length} event${events.length === 1 ? '' : 's'}`);
    for (const event of events) this.output.line(historyLine(event));
  }

  /** Prints up to `limit` events after `after`, page by page; returns the last position printed (or `after`). */
  private async printAfter(after: number, limit: number): Promise<number> {
    let last = after;
    let printed = 0;
    while (printed < limit) {
      const wanted = Math.min(PAGE, limit - printed);
      const batch = await this.eventStore.readAll({ after: last, maxCount: wanted });
      for (const event of batch) this.output.line(logLine(event));
      printed += batch.length;
      last = batch.at(-1)?.position ?? last;
      if (batch.length < wanted) break;
    }
    return last;
  }

  /**
   * The newest events of the log. SQLite positions are dense row ids, so the window is computed from the head;
   * other stores' positions (KurrentDB byte offsets) are only known as handed out, so the log is scanned forwards.
   */
  private async lastEvents(limit: number): Promise<EventEnvelope[]> {
    if (limit <= 0) return [];
    if (this.config.eventStore === 'sqlite') {
      const head = await this.eventStore.headPosition();
      return this.eventStore.readAll({ after: Math.max(0, head - limit), maxCount: limit });
    }
    let window: EventEnvelope[] = [];
    let after: number | undefined;
    for (;;) {
      const batch = await this.eventStore.readAll({ after, maxCount: PAGE });
      window = [...window, ...batch].slice(-limit);
      if (batch.length < PAGE) return window;
      after = batch.at(-1)!.position;
    }
  }

  private follow(after: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const subscription = this.eventStore.subscribeToAll({
        after,
        onEvents: async (events) => {
          for (const event of events) this.output.line(logLine(event));
        },
        onError: (error) => {
          signal?.removeEventListener('abort', stop);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      });
      function stop() {
        subscription.stop().then(resolve, reject);
      }
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop, { once: true });
    });
  }
}
