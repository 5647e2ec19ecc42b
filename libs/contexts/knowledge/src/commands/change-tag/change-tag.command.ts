// Renaming or recolouring one of an Agent's tags.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeReads } from '../../knowledge-reads.js';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { tagDecider } from '../../tag.decider.js';
import { tagStreamId } from '../../tag.events.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: ChangeTag) => knowledge.tag(agentId))
export class ChangeTag extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly tagId: string,
    readonly change: { readonly name?: string | undefined; readonly color?: string | undefined },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeTag)
export class ChangeTagHandler implements ICommandHandler<ChangeTag> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly knowledge: KnowledgeReads,
  ) {}

  async execute({ agentId, tagId, change, context }: ChangeTag): Promise<WriteResult> {
    await this.knowledge.agentTag(agentId, tagId);
    const result = await this.aggregates.decide(
      tagStreamId(tagId),
      tagDecider,
      { type: 'ChangeTag', tagId, ...change },
      context,
    );
    return { id: tagId, position: result.position };
  }
}
