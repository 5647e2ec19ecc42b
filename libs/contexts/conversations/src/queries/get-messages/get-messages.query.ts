// A conversation's messages, oldest first, opened with their keys (a deleted message is gone from the list), and
// where the model's compacted view starts. The raw history is always listed whole: only the model's view is compacted.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import type { BranchedMessage } from '../../owned-conversation.js';
import type { MessagesDto, MessagesQuery } from '../../conversation.schemas.js';

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: GetMessages) =>
  conversations.owned(agentId, conversationId),
)
export class GetMessages extends Query<z.output<typeof MessagesDto>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly query: z.output<typeof MessagesQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

export const toMessageDto = (message: BranchedMessage) => ({
  id: message.id,
  role: message.role,
  content: message.content,
  citations: [...message.citations],
  attachments: message.attachments.map(({ documentId, name, mimeType, sizeBytes }) => ({
    documentId,
    name,
    mimeType,
    sizeBytes,
  })),
  status: message.status,
  model: message.model,
  parentId: message.parentId,
  siblings: message.siblings && { ids: [...message.siblings.ids], index: message.siblings.index },
  createdAt: message.createdAt,
});

@QueryHandler(GetMessages)
export class GetMessagesHandler implements IQueryHandler<GetMessages> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, query }: GetMessages) {
    const owned = await this.directory.owned(agentId, conversationId);
    const page = await owned.reads.messages(
      { limit: query.limit, cursor: query.cursor ?? null },
      query.branches,
    );
    const checkpoint = owned.record.checkpoint;
    return {
      data: page.data.map(toMessageDto),
      nextCursor: page.nextCursor,
      compaction: checkpoint
        ? {
            checkpointId: checkpoint.checkpointId,
            throughMessageId: checkpoint.throughMessageId,
            throughOffset: checkpoint.throughOffset,
            summary: checkpoint.summary,
          }
        : null,
    };
  }
}
