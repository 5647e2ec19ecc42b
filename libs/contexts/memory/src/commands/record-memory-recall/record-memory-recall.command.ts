// A turn's answer used these memories (sent by the memory context provider after a complete answer): each bucket
// records the recall (their recency, and which answers used them). The turn was authorized by its conversation.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { MemoryRepository } from '../../memory.repository.js';

@AskedAtRoute('no route sends it: only the memory context provider, in a turn its conversation admitted')
export class RecordMemoryRecall extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    /** The memories recalled, by bucket. */
    readonly recalled: readonly { readonly owner: string; readonly memoryIds: readonly string[] }[],
    /** The answer that used them, and whose turn it was. */
    readonly turn: { readonly conversationId: string; readonly messageId: string; readonly userId: string },
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordMemoryRecall)
export class RecordMemoryRecallHandler implements ICommandHandler<RecordMemoryRecall> {
  constructor(private readonly memories: MemoryRepository) {}

  async execute({ agentId, recalled, turn, context }: RecordMemoryRecall): Promise<WriteResult> {
    let position = 0;
    for (const { owner, memoryIds } of recalled)
      position = Math.max(
        position,
        await this.memories.recall(agentId, owner, memoryIds, { ...turn }, context),
      );
    return { id: turn.messageId, position };
  }
}
