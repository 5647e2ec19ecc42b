// GET /audit/export (our extension): the audit trail an auditor downloads and verifies, as a hash chain of JSON lines.
import { Controller, Get, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { ExportAudit, EXPORT_MAX_ENTRIES } from './export-audit.query.js';
import { AuditExportQuery } from './export-audit.schema.js';

@Controller('api/v1/core/audit')
export class ExportAuditController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Audit',
    summary: 'Download the selected audit entries as a hash chain (admins; a Space owner for their Space)',
    description:
      'JSON lines, oldest first: `{ entry, prevHash, hash }` with hash = sha256(prevHash + the entry as JSON with ' +
      'sorted keys), the first prevHash 64 zeros, then `{ trailer: { count, fromPosition, toPosition, headHash } }`. ' +
      'Changing, removing, adding or reordering a line breaks the chain (`npm run cli -- audit verify FILE`, or the ' +
      `web app's Audit page). The same filters and access as GET /audit; more than ${EXPORT_MAX_ENTRIES} entries ` +
      'is 400 `export_too_large` (narrow it with from/to).',
    query: AuditExportQuery,
    response: { status: 200, description: 'application/x-ndjson' },
    errors: [400, 403, 404],
  })
  @Get('export')
  async export(
    @Query(new ZodQuery(AuditExportQuery)) query: z.output<typeof AuditExportQuery>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const text = await this.queries.execute(new ExportAudit(query, caller));
    const day = new Date().toISOString().slice(0, 10);
    void reply
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="audit-${day}.jsonl"`);
    return text;
  }
}
