// The platform clears a bucket because its Agent was deleted (sent by AgentMemoriesDeletionProcess): the clear
// destroys the bucket's key group, which also holds the keys of its user's pending proposals, so a bucket with no
// live memory (no event) still loses them. The cause is a fact of the log: nothing to authorize.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { AskedAtRoute, type PlatformPrincipal } from '#access';
import { MemoryRepository } from '../../memory.repository.js';

@AskedAtRoute(
  'no route sends it: only AgentMemoriesDeletionProcess, whose principal is the platform (typed so)',
)
export class ClearDeletedAgentBucket extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly owner: string,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(ClearDeletedAgentBucket)
export class ClearDeletedAgentBucketHandler implements ICommandHandler<ClearDeletedAgentBucket> {
  constructor(private readonly memories: MemoryRepository) {}

  async execute({ agentId, owner, context }: ClearDeletedAgentBucket): Promise<WriteResult> {
    const position = await this.memories.clear(agentId, owner, null, 'agent_deleted', context);
    return { id: `${agentId}:${owner}`, position };
  }
}
