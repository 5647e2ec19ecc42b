// GET /knowledge-index (admin, extension): the knowledge index's state (get-knowledge-index.query.ts).
import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetKnowledgeIndex } from './get-knowledge-index.query.js';

@Controller('api/v1/core/knowledge-index')
export class GetKnowledgeIndexController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The live search index, its size, and the progress of a re-index (admin, extension)',
    response: { status: 200, description: '`{ live, stats, building, reindex, nearestNeighbours }`' },
    errors: [403],
  })
  @Get()
  status(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetKnowledgeIndex(caller));
  }
}
