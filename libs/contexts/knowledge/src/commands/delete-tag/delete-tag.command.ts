// Deleting one of an Agent's tags: by a principal using the Agent, or by the platform when the Agent was deleted (the
// owner-deletion process; a tag gone meanwhile is then no error). The documents that carry it lose it through the
// tag-deletion process.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { actingAgentId, KnowledgeResolver } from '../../knowledge-resolver.js';
import { tagDecider } from '../../tag.decider.js';
import { tagStreamId } from '../../tag.events.js';

@Requires(KnowledgeResolver, (knowledge, { agentId, principal }: DeleteTag) =>
  knowledge.acting(agentId, principal, (through) => knowledge.tag(through)),
)
export class DeleteTag extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly tagId: string,
    readonly reason: 'requested' | 'owner_deleted',
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteTag)
export class DeleteTagHandler implements ICommandHandler<DeleteTag> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly knowledge: KnowledgeReads,
  ) {}

  async execute({ agentId, tagId, reason, context, principal }: DeleteTag): Promise<WriteResult> {
    if (actingAgentId(agentId, principal) !== null) await this.knowledge.agentTag(agentId, tagId);
    const result = await this.aggregates.decide(
      tagStreamId(tagId),
      tagDecider,
      { type: 'DeleteTag', tagId, reason },
      context,
    );
    return { id: tagId, position: result.position };
  }
}
