// PUT /llm/{agentId}/conversation/{conversationId}/head (extension): which branch the conversation continues.
import { Body, Controller, Param, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ConversationDto, SwitchBranchBody } from '../../conversation.schemas.js';
import { CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL } from '../../conversations.read-model.js';
import { GetConversation } from '../../queries/get-conversation/get-conversation.query.js';
import { SwitchBranch } from './switch-branch.command.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/head')
export class SwitchBranchController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'Switch a conversation to another branch (extension)',
    description:
      'An edited or regenerated question starts a branch beside the earlier one, which is kept (each message lists ' +
      'its alternatives as `siblings`). Naming any message of a branch makes the conversation continue from that ' +
      "branch's newest message (`headId`): the messages route lists that branch and the next turn follows it.",
    body: SwitchBranchBody,
    response: {
      status: 200,
      schema: ConversationDto,
      description: 'The conversation, with its new `headId`',
    },
    errors: [400, 403, { status: 404, description: '`conversation_not_found` or `message_not_found`' }],
  })
  @Put()
  async switch(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Body(new ZodBody(SwitchBranchBody)) body: z.output<typeof SwitchBranchBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.writes.send(
      new SwitchBranch(agentId, conversationId, body.messageId, commandContext(caller), principal),
      [CONVERSATIONS_READ_MODEL, MESSAGES_READ_MODEL],
    );
    return this.queries.execute(new GetConversation(agentId, conversationId, principal));
  }
}
