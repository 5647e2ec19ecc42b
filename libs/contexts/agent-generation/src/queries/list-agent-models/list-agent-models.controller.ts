// GET /llm/{agentId}/models (spec).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { ModelsDto } from '../../llm.schemas.js';
import { ListAgentModels } from './list-agent-models.query.js';

@Controller(['api/v1/core/llm/:agentId', 'api/v1/bridge/agents/:agentId/llm'])
export class ListAgentModelsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'LLM',
    summary: "List the Agent's allowed models",
    response: { status: 200, schema: ModelsDto, description: 'The chat models and the default one' },
    errors: [403, 404],
  })
  @Get('models')
  listModels(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListAgentModels(agentId, caller));
  }
}
