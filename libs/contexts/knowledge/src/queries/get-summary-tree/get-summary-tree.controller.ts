// GET /knowledge/{agentId}/summary-index/tree (extension).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { SummaryTreeDto } from '../../knowledge.schemas.js';
import { GetSummaryTree } from './get-summary-tree.query.js';

@Controller('api/v1/core/knowledge/:agentId/summary-index')
export class GetSummaryTreeController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The serving summary tree: every summary with its level, children and documents (extension)',
    response: { status: 200, schema: SummaryTreeDto, description: 'The tree' },
    errors: [403, 404, { status: 409, description: '`summary_index_not_built`: no build has completed' }],
  })
  @Get('tree')
  tree(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetSummaryTree(agentId, caller));
  }
}
