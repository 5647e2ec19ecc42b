// Recording batches of model calls of one API key and day (the UsageRecorder sends them, off the hot path). Recording
// has no invariant to protect (a call happened): the decider turns each batch into one event, and the kit's record of
// facts (AggregateRepository.record) appends them at the stream's revision, which orders concurrent writers, without
// loading the day's calls. One event per batch, not per call: each event costs the log a row and every projector a
// transaction, per flush rather than per call. Each event's id derives from its batch's first call (a retried batch,
// sent again as it was, records nothing twice), the key is its actor (the context's), the first call's request its
// correlation and its start its time; every call inside keeps its own correlation id and start. No principal: the
// platform records what its gateway served.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { AskedAtRoute } from '#access';
import { usageDecider } from '../../usage.decider.js';
import { batchEventId, usageStreamId, type BatchedModelCall } from '../../usage.events.js';

/** Concurrent writers of one key and day are a few api processes: a handful of retries settles them. */
const APPEND_RETRIES = 7;

@AskedAtRoute('no route sends it: the UsageRecorder records what the gateway served (no principal)')
export class RecordModelCalls extends Command<{ readonly position: number }> {
  constructor(
    readonly apiKeyId: string,
    /** The UTC day the calls started (YYYY-MM-DD): the stream. */
    readonly day: string,
    /** Each batch (non-empty) becomes one event. */
    readonly batches: readonly (readonly BatchedModelCall[])[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordModelCalls)
export class RecordModelCallsHandler implements ICommandHandler<RecordModelCalls> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ apiKeyId, day, batches, context }: RecordModelCalls): Promise<{ position: number }> {
    const recorded = batches.filter((calls) => calls.length > 0);
    const result = await this.aggregates.record(
      usageStreamId(apiKeyId, day),
      usageDecider,
      { batches: recorded },
      {
        ...context,
        perEvent: (index) => {
          const first = recorded[index]![0]!;
          return { id: batchEventId(first), correlationId: first.correlationId, occurredAt: first.startedAt };
        },
      },
      { retries: APPEND_RETRIES },
    );
    return { position: result.position };
  }
}
