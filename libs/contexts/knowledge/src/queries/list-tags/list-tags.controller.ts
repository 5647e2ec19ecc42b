// GET /knowledge/{agentId}/tags (spec).
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, listOf } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param } from '@nestjs/common';
import { TagDto } from '../../knowledge.schemas.js';
import { ListTags } from './list-tags.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller(['api/v1/core/knowledge/:agentId', 'api/v1/bridge/agents/:agentId/knowledge'])
export class ListTagsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'List the Agent’s tags',
    response: { status: 200, schema: listOf(TagDto), description: 'Oldest first' },
    errors: [403, 404],
  })
  @Get('tags')
  list(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListTags(agentId, caller));
  }
}
