// GET /llm/{agentId}/conversation/{conversationId}/messages/{messageId}/provenance (extension).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { ProvenanceDto } from '../../conversation.schemas.js';
import { GetProvenance } from './get-provenance.query.js';

@Controller('api/v1/core/llm/:agentId/conversation/:conversationId/messages/:messageId/provenance')
export class GetProvenanceController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Conversations',
    summary: 'What produced an answer (extension)',
    description:
      "The model and provider, sampling, the Agent's revision and prompt hash at the turn, every source retrieved " +
      '(document id, version, content hash, section, score), every tool call, the checkpoint the prompt started from.',
    response: { status: 200, schema: ProvenanceDto, description: 'The provenance of an assistant message' },
    errors: [
      403,
      {
        status: 404,
        description: '`conversation_not_found`, or `message_not_found` (also for a user message)',
      },
    ],
  })
  @Get()
  get(
    @Param('agentId') agentId: string,
    @Param('conversationId') conversationId: string,
    @Param('messageId') messageId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetProvenance(agentId, conversationId, messageId, principalOf(caller)));
  }
}
