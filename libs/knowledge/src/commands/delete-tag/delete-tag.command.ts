// Deleting one of an Agent's tags; the documents that carry it lose it through the tag-deletion process.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import type { Caller } from '#identity';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { KnowledgeAccess } from '../../knowledge-access.js';
import { tagDecider } from '../../tag.decider.js';
import { tagStreamId } from '../../tag.events.js';

export class DeleteTag extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly tagId: string,
    readonly context: CommandContext,
    /** null when the system acts (the Agent owning the tag was deleted). */
    readonly caller: Caller | null,
  ) {
    super();
  }
}

@CommandHandler(DeleteTag)
export class DeleteTagHandler implements ICommandHandler<DeleteTag> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly access: KnowledgeAccess,
  ) {}

  async execute({ agentId, tagId, context, caller }: DeleteTag): Promise<WriteResult> {
    if (caller) {
      await this.access.agent(agentId, caller);
      await this.access.agentTag(agentId, tagId);
    }
    const result = await this.aggregates.decide(
      tagStreamId(tagId),
      tagDecider,
      { type: 'DeleteTag', tagId },
      context,
    );
    return { id: tagId, position: result.position };
  }
}
