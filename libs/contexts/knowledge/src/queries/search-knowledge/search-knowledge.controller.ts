// POST /knowledge/{agentId}/search (spec): hybrid retrieval with citations.
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Body, HttpCode, Param, Post } from '@nestjs/common';
import type { z } from 'zod';
import { SearchBody, SearchResultDto } from '../../knowledge.schemas.js';
import { SearchKnowledge } from './search-knowledge.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class SearchKnowledgeController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Search the Agent’s Knowledge (its own, its Space’s and Global Ready documents), with citations',
    idempotent: true,
    description:
      'Hybrid retrieval: BM25 and vector similarity fused by reciprocal rank fusion; `rerank: true` re-orders the ' +
      "hits with the instance's reranker. When the Agent's `includeAiSummary` is on, `summary` is the section " +
      'summary (from its summary index) closest to the query. 409 `knowledge_disabled` when the Agent’s ' +
      'Knowledge Base is off.',
    body: SearchBody,
    response: { status: 200, schema: SearchResultDto, description: 'Best first' },
    errors: [400, 403, 404, 409],
  })
  @Post('search')
  @HttpCode(200)
  search(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(SearchBody)) body: z.output<typeof SearchBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new SearchKnowledge(agentId, body, caller));
  }
}
