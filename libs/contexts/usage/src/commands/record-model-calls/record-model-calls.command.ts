// Recording a batch of model calls of one API key and day (the UsageRecorder sends it, off the hot path). Recording
// has no invariant to protect (a call happened): the decider turns the calls into events, and the kit's record of facts
// (AggregateRepository.record) appends them at the stream's revision, which orders concurrent writers, without
// loading the day's calls. Each event keeps the call's own facts: its id derives from the call id
// (a retried batch records nothing twice), the key is its actor (the context's), the call's request its correlation,
// its start its time. No principal: the platform records what its gateway served.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { AskedAtRoute } from '#access';
import { usageDecider } from '../../usage.decider.js';
import { callEventId, usageStreamId, type ModelCall } from '../../usage.events.js';

/** A call to record, with the correlation id of the request that made it. */
export interface RecordedCall {
  readonly call: ModelCall;
  readonly correlationId: string;
}

/** Concurrent writers of one key and day are a few api processes: a handful of retries settles them. */
const APPEND_RETRIES = 7;

@AskedAtRoute('no route sends it: the UsageRecorder records what the gateway served (no principal)')
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
    const recorded = await this.aggregates.record(
      usageStreamId(apiKeyId, day),
      usageDecider,
      { calls: calls.map(({ call }) => call) },
      {
        ...context,
        perEvent: (index) => {
          const { call, correlationId } = calls[index]!;
          return { id: callEventId(call), correlationId, occurredAt: call.startedAt };
        },
      },
      { retries: APPEND_RETRIES },
    );
    return { position: recorded.position };
  }
}
