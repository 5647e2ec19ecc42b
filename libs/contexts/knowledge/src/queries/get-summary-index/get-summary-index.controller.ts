// GET /knowledge/{agentId}/summary-index (extension).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { SummaryIndexStatusDto } from '../../knowledge.schemas.js';
import { GetSummaryIndex } from './get-summary-index.query.js';

@Controller('api/v1/core/knowledge/:agentId/summary-index')
export class GetSummaryIndexController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary:
      "The Agent's section-summary index: the serving tree and the latest build's progress (extension)",
    description:
      'The index is a tree of summaries over the chunks of every Ready document the Agent can search: related ' +
      'chunks are grouped and summarised by the model, and the summaries grouped again, up to one root. Search ' +
      "returns the closest summary when the Agent's `includeAiSummary` is on.",
    response: { status: 200, schema: SummaryIndexStatusDto, description: 'Status' },
    errors: [403, 404],
  })
  @Get()
  status(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetSummaryIndex(agentId, caller));
  }
}
