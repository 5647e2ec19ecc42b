// What a turn's memory extraction decided, kept (sent by the memory context provider, which screened each candidate
// and compared it with what the user's buckets remember): a refused candidate recorded (reasons only), a
// contradicted personal fact superseded, a team fact proposed to the user, a new personal fact added. In order; the
// turn was authorized by its conversation, and memory's rules (memory-rules.ts) were applied by the provider.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { MemorySource } from '../../memory.events.js';
import { MemoryRepository } from '../../memory.repository.js';

export type ExtractedMemory =
  | { readonly kind: 'flagged'; readonly reasons: readonly string[] }
  | { readonly kind: 'superseded'; readonly owner: string; readonly memoryId: string; readonly text: string }
  | { readonly kind: 'proposed'; readonly proposalId: string; readonly text: string }
  | { readonly kind: 'added'; readonly memoryId: string; readonly text: string };

@AskedAtRoute('no route sends it: only the memory context provider, in a turn its conversation admitted')
export class KeepExtractedMemories extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    /** The user whose turn it was. */
    readonly userId: string,
    /** The turn's user message: the source of what is saved, and where a proposal came from. */
    readonly source: MemorySource & { readonly kind: 'extraction' },
    readonly proposedFrom: { readonly conversationId: string; readonly messageId: string },
    readonly extracted: readonly ExtractedMemory[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(KeepExtractedMemories)
export class KeepExtractedMemoriesHandler implements ICommandHandler<KeepExtractedMemories> {
  constructor(private readonly memories: MemoryRepository) {}

  async execute(command: KeepExtractedMemories): Promise<WriteResult> {
    const { agentId, userId, source, proposedFrom, context } = command;
    let position = 0;
    for (const memory of command.extracted)
      switch (memory.kind) {
        case 'flagged':
          position = await this.memories.flag(
            { agentId, owner: userId, reasons: memory.reasons, source, flaggedBy: userId },
            context,
          );
          break;
        case 'superseded':
          position = await this.memories.revise(
            {
              agentId,
              owner: memory.owner,
              memoryId: memory.memoryId,
              text: memory.text,
              source,
              revisedBy: null,
              reason: 'superseded',
            },
            context,
          );
          break;
        case 'proposed':
          position = (
            await this.memories.propose(
              { agentId, userId, text: memory.text, ...proposedFrom, proposalId: memory.proposalId },
              context,
            )
          ).position;
          break;
        case 'added':
          position = (
            await this.memories.add(
              {
                agentId,
                owner: userId,
                text: memory.text,
                source,
                addedBy: userId,
                memoryId: memory.memoryId,
              },
              context,
            )
          ).position;
          break;
      }
    return { id: source.messageId ?? '', position };
  }
}
