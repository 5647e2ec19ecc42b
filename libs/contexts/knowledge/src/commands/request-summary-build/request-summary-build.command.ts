// Requesting a build of an Agent's section-summary index (incremental, or full: every group summarised again). The
// Agent's own chat model writes the summaries; the instance's default when it has none. The build runs in the
// background (the summary-index worker); the previous tree serves until it completes.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { ModelGateway } from '#model-gateway';
import { Requires, type Principal } from '#access';
import { ConflictError, newId } from '#kernel';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { summaryIndexDecider } from '../../summary/summary-index.decider.js';
import { summaryIndexStreamId } from '../../summary/summary-index.events.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: RequestSummaryBuild) => knowledge.use(agentId))
export class RequestSummaryBuild extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly full: boolean,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RequestSummaryBuild)
export class RequestSummaryBuildHandler implements ICommandHandler<RequestSummaryBuild> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly knowledge: KnowledgeReads,
    private readonly gateway: ModelGateway,
  ) {}

  async execute({ agentId, full, context }: RequestSummaryBuild): Promise<WriteResult> {
    const agent = await this.knowledge.agent(agentId);
    const own = agent.model ? this.gateway.registry.get(agent.model) : undefined;
    const model = own?.kind === 'chat' ? own : this.gateway.registry.defaultModel('chat');
    if (!model)
      throw new ConflictError('no_chat_model', 'no chat model is configured to write the summaries');
    const result = await this.aggregates.decide(
      summaryIndexStreamId(agentId),
      summaryIndexDecider,
      { type: 'RequestSummaryBuild', agentId, buildId: newId('sumb'), full, model: model.key },
      context,
    );
    return { id: agentId, position: result.position };
  }
}
