// What the summary-index worker records about a build, as the platform: started, progressed, completed, failed, a
// tree pruned, an index deleted. The decider makes repeats no-ops; the answer says how many events were appended. No
// principal: only the worker sends it (no route does).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import { SYSTEM_ACTOR } from '#kernel';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { summaryIndexDecider, type SummaryIndexCommand } from '../../summary/summary-index.decider.js';
import { summaryIndexStreamId } from '../../summary/summary-index.events.js';

/** The context of the worker's records: the platform, correlated by Agent. */
export const summaryBuildContext = (agentId: string): CommandContext => ({
  actor: SYSTEM_ACTOR,
  correlationId: `summary-index:${agentId}`,
  causationId: null,
  now: () => new Date(),
});

@AskedAtRoute('no route sends it: only the summary-index worker, as the platform, in-process')
export class RecordSummaryBuild extends Command<{ readonly appended: number }> {
  constructor(
    readonly record: SummaryIndexCommand,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordSummaryBuild)
export class RecordSummaryBuildHandler implements ICommandHandler<RecordSummaryBuild> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ record, context }: RecordSummaryBuild) {
    const result = await this.aggregates.decide(
      summaryIndexStreamId(record.agentId),
      summaryIndexDecider,
      record,
      context,
    );
    return { appended: result.events.length };
  }
}
