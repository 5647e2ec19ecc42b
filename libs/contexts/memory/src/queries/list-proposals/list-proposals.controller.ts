// GET /memory/{agentId}/proposals (our design).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { ProposalDto, ProposalListQuery } from '../../memory.schemas.js';
import { ListProposals } from './list-proposals.query.js';

@Controller('api/v1/core/memory/:agentId/proposals')
export class ListProposalsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Memory',
    summary: 'Shared-memory proposals waiting for me',
    description:
      'A fact about the team from one of my turns is proposed to me before everyone using the Agent sees it.',
    query: ProposalListQuery,
    response: { status: 200, schema: listOf(ProposalDto), description: 'The proposals, oldest first' },
    errors: [400, 403, 404],
  })
  @Get()
  list(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(ProposalListQuery)) query: z.output<typeof ProposalListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListProposals(agentId, query, principalOf(caller)));
  }
}
