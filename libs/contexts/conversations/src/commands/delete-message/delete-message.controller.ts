// DELETE /llm/{agentId}/conversation/{conversationId}/messages/{messageId} (extension).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ConversationDirectory } from '../../conversation-directory.js';
import { DeleteMessage } from './delete-message.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/messages/:messageId')
export class DeleteMessageController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly directory: ConversationDirectory,
  ) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Delete one message of a conversation (extension)',
    description:
      'Its text is erased everywhere and later turns never see it; a compaction summary that read it is discarded.',
    response: { status: 204, description: 'Deleted' },
    errors: [403, { status: 404, description: '`conversation_not_found` or `message_not_found`' }],
  })
  @Delete()
  @HttpCode(204)
  async delete(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Param('messageId') messageId: string,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new DeleteMessage(agentId, conversationId, messageId, commandContext(caller), principalOf(caller)),
      this.directory.erasureSettles(),
    );
  }
}
