// GET /provenance (issue 25 §3): which answers used a source.
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetProvenance } from './get-provenance.query.js';
import { ProvenanceDto, ProvenanceQuery } from './get-provenance.schema.js';

@Controller('api/v1/core/provenance')
export class GetProvenanceController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Audit',
    summary:
      'Which answers used a source: a document (version), a chunk, a Skill version, a memory, a prompt',
    description:
      'From the provenance every recorded answer carries, oldest first. Admins see every answer; a user sees their ' +
      'own answers of an Agent they use. A deleted document or Skill keeps its answers listed (`source.status`).',
    query: ProvenanceQuery,
    response: {
      status: 200,
      schema: ProvenanceDto,
      description: 'The source and a page of the answers that used it',
    },
    errors: [400, 409],
  })
  @Get()
  list(
    @Query(new ZodQuery(ProvenanceQuery)) query: z.output<typeof ProvenanceQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetProvenance(query, caller));
  }
}
