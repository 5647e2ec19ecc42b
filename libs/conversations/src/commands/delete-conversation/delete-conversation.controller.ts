// DELETE /llm/{agentId}/conversation/{conversationId} (extension): permanent.
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { DeleteConversation } from './delete-conversation.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId')
export class DeleteConversationController {
  constructor(private readonly bus: CommandBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Delete a conversation permanently (extension)',
    description:
      'Its texts are erased everywhere (their data keys are destroyed: read models, rebuilds from the log and backups ' +
      'of the log can no longer read them); the log keeps that the conversation existed, who deleted it and when.',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  })
  @Delete()
  @HttpCode(204)
  async delete(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @CurrentCaller() caller: Caller,
  ) {
    await this.bus.execute(new DeleteConversation(agentId, conversationId, caller));
  }
}
