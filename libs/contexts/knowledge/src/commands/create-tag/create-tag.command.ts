// Creating one of an Agent's tags.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newEntityId, type CommandContext } from '#eventsourcing';
import type { Principal } from '#access';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { tagDecider } from '../../tag.decider.js';
import { tagStreamId } from '../../tag.events.js';

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
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly access: KnowledgeAccess,
  ) {}

  async execute({ agentId, name, color, context, principal }: CreateTag): Promise<WriteResult> {
    await this.access.taggableAgent(agentId, principal);
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
