// DELETE /llm/{agentId}/conversation/{conversationId} (extension): permanent.
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ConversationDirectory } from '../../conversation-directory.js';
import { DeleteConversation } from './delete-conversation.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId')
export class DeleteConversationController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly directory: ConversationDirectory,
  ) {}

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
    await this.writes.send(
      new DeleteConversation(agentId, conversationId, commandContext(caller), principalOf(caller)),
      this.directory.erasureSettles(),
    );
  }
}
