// Creating one of an Agent's tags.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newEntityId, type CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeResolver } from '../../knowledge-resolver.js';
import { tagDecider } from '../../tag.decider.js';
import { tagStreamId } from '../../tag.events.js';

@Requires(KnowledgeResolver, (knowledge, { agentId }: CreateTag) => knowledge.tag(agentId))
export class CreateTag extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly name: string,
    readonly color: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreateTag)
export class CreateTagHandler implements ICommandHandler<CreateTag> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ agentId, name, color, context }: CreateTag): Promise<WriteResult> {
    const tagId = newEntityId(context, 'tag');
    const result = await this.aggregates.decide(
      tagStreamId(tagId),
      tagDecider,
      { type: 'CreateTag', tagId, agentId, name, color },
      context,
    );
    return { id: tagId, position: result.position };
  }
}
