// DELETE /llm/{agentId}/conversation/{conversationId}/messages/{messageId} (extension).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { DeleteMessage } from './delete-message.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/messages/:messageId')
export class DeleteMessageController {
  constructor(private readonly bus: CommandBus) {}

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
    await this.bus.execute(new DeleteMessage(agentId, conversationId, messageId, caller));
  }
}
