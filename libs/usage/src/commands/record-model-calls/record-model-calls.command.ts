// Recording a batch of model calls of one API key and day (the UsageRecorder sends it, off the hot path). Recording
// has no invariant to protect (a call happened): the decider turns the calls into events, and the append with the
// expected revision orders concurrent writers. Each event keeps the call's own facts: its id derives from the call id
// (a retried batch records nothing twice), the key is its actor (the context's), the call's request its correlation,
// its start its time. No principal: the platform records what its gateway served.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { WrongExpectedRevisionError, type NewEvent } from '#kernel';
import { AggregateRepository, SCHEMA_VERSION, type CommandContext } from '#eventsourcing';
import { usageDecider, ZERO_USAGE } from '../../usage.decider.js';
import { callEventId, usageStreamId, type ModelCall } from '../../usage.events.js';

/** A call to record, with the correlation id of the request that made it. */
export interface RecordedCall {
  readonly call: ModelCall;
  readonly correlationId: string;
}

const APPEND_ATTEMPTS = 8;

export class RecordModelCalls extends Command<{ readonly position: number }> {
  constructor(
    readonly apiKeyId: string,
    /** The UTC day the calls started (YYYY-MM-DD): the stream. */
    readonly day: string,
    readonly calls: readonly RecordedCall[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordModelCalls)
export class RecordModelCallsHandler implements ICommandHandler<RecordModelCalls> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ apiKeyId, day, calls, context }: RecordModelCalls): Promise<{ position: number }> {
    const streamId = usageStreamId(apiKeyId, day);
    const decided = usageDecider.decide({ calls: calls.map(({ call }) => call) }, ZERO_USAGE);
    const events: NewEvent[] = decided.map((event, index) => {
      const { call, correlationId } = calls[index]!;
      return {
        id: callEventId(call),
        type: event.type,
        data: event.data,
        metadata: {
          correlationId,
          causationId: null,
          actor: context.actor,
          occurredAt: call.startedAt,
          schemaVersion: SCHEMA_VERSION,
        },
      };
    });
    for (let attempt = 1; ; attempt++) {
      // Only the revision matters: loading the state would read and parse the calls appended since it was last loaded.
      const revision = await this.aggregates.store.streamRevision(streamId);
      try {
        const appended = await this.aggregates.store.appendToStream(
          streamId,
          events,
          revision === null ? 'no_stream' : revision,
        );
        return { position: appended.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= APPEND_ATTEMPTS) throw error;
      }
    }
  }
}
