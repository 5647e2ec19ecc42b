// The audit context: the audit trail (GET /audit and its hash-chained export, over its read model; the fold over the log, shared with the CLI's
// export); which answers used a source (GET /provenance, over the provenance read model).
import { Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail.js';
import { AuditEntriesReader } from './audit-entries.reader.js';
import { AuditResolver } from './audit-resolver.js';
import { GetAuditController } from './queries/get-audit/get-audit.controller.js';
import { GetAuditHandler } from './queries/get-audit/get-audit.query.js';
import { ExportAuditController } from './queries/export-audit/export-audit.controller.js';
import { ExportAuditHandler } from './queries/export-audit/export-audit.query.js';
import { GetProvenanceController } from './queries/get-provenance/get-provenance.controller.js';
import { GetProvenanceHandler } from './queries/get-provenance/get-provenance.query.js';

export const AUDIT_CONTROLLERS = [GetAuditController, ExportAuditController, GetProvenanceController];

export const AUDIT_QUERY_HANDLERS = [GetAuditHandler, ExportAuditHandler, GetProvenanceHandler];

@Module({
  controllers: AUDIT_CONTROLLERS,
  providers: [AuditTrail, AuditEntriesReader, AuditResolver, ...AUDIT_QUERY_HANDLERS],
  exports: [AuditTrail, AuditEntriesReader],
})
export class AuditModule {}
