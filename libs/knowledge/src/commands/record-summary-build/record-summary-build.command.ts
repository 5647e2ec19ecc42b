// What the summary-index worker records about a build, as the platform: started, progressed, completed, failed, a
// tree pruned, an index deleted. The decider makes repeats no-ops; the answer says how many events were appended.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SYSTEM_ACTOR } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import { summaryIndexDecider, type SummaryIndexCommand } from '../../summary/summary-index.decider.js';
import { summaryIndexStreamId } from '../../summary/summary-index.events.js';

export class RecordSummaryBuild extends Command<{ readonly appended: number }> {
  constructor(readonly record: SummaryIndexCommand) {
    super();
  }
}

@CommandHandler(RecordSummaryBuild)
export class RecordSummaryBuildHandler implements ICommandHandler<RecordSummaryBuild> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ record }: RecordSummaryBuild) {
    const result = await this.aggregates.decide(
      summaryIndexStreamId(record.agentId),
      summaryIndexDecider,
      record,
      {
        actor: SYSTEM_ACTOR,
        correlationId: `summary-index:${record.agentId}`,
        causationId: null,
        now: () => new Date(),
      },
    );
    return { appended: result.events.length };
  }
}
