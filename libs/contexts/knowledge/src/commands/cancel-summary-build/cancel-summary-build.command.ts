// Cancelling the build under way of an Agent's section-summary index; the tree built before keeps serving.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { summaryIndexDecider } from '../../summary/summary-index.decider.js';
import { summaryIndexStreamId } from '../../summary/summary-index.events.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: CancelSummaryBuild) => knowledge.use(agentId))
export class CancelSummaryBuild extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CancelSummaryBuild)
export class CancelSummaryBuildHandler implements ICommandHandler<CancelSummaryBuild> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ agentId, context }: CancelSummaryBuild): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      summaryIndexStreamId(agentId),
      summaryIndexDecider,
      { type: 'CancelSummaryBuild', agentId },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
