// A conversation's messages, oldest first, opened with their keys (a deleted message is gone from the list), and
// where the model's compacted view starts. The raw history is always listed whole: only the model's view is compacted.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Caller } from '#identity';
import { decodeCursor, encodeCursor, InvalidCursorError } from '#read-store';
import { ConversationDirectory } from '../../conversation-directory.js';
import type { PlainMessage } from '../../conversation-records.js';
import type { MessagesDto, MessagesQuery } from '../../conversation.schemas.js';

export class GetMessages extends Query<z.output<typeof MessagesDto>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly query: z.output<typeof MessagesQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

export const toMessageDto = (message: PlainMessage) => ({
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
  createdAt: message.createdAt,
});

@QueryHandler(GetMessages)
export class GetMessagesHandler implements IQueryHandler<GetMessages> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, query, caller }: GetMessages) {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    const cursor = query.cursor ?? null;
    let page: { data: PlainMessage[]; nextCursor: string | null };
    if (owned.kind === 'stored')
      page = await this.directory.stored.messages(owned.record.id, { limit: query.limit, cursor });
    else {
      const position = cursor ? decodeCursor(cursor) : { value: 0 };
      const from = Number(position?.value);
      if (!Number.isInteger(from) || from < 0) throw new InvalidCursorError();
      const data = owned.live.messages.slice(from, from + query.limit);
      const next = from + data.length;
      page = {
        data,
        nextCursor: next < owned.live.messages.length ? encodeCursor({ value: next, id: '' }) : null,
      };
    }
    const checkpoint = owned.record.checkpoint;
    return {
      data: page.data.map(toMessageDto),
      nextCursor: page.nextCursor,
      compaction: checkpoint
        ? {
            checkpointId: checkpoint.checkpointId,
            throughMessageId: checkpoint.throughMessageId,
            throughOffset: checkpoint.throughOffset,
          }
        : null,
    };
  }
}
