// GET /audit (issue 25 §1).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetAudit } from './get-audit.query.js';
import { AuditEntryDto, AuditQuery } from './get-audit.schema.js';

@Controller('api/v1/core/audit')
export class GetAuditController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Audit',
    summary: 'Who changed what, when and why (admins; a Space owner for their Space and what is inside it)',
    query: AuditQuery,
    response: {
      status: 200,
      schema: listOf(AuditEntryDto),
      description: 'A page of audit entries in log order (newest first by default)',
    },
    errors: [400, 403, 404],
  })
  @Get()
  list(@Query(new ZodQuery(AuditQuery)) query: z.output<typeof AuditQuery>, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetAudit(query, caller));
  }
}
