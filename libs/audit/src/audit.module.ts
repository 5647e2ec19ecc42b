// The audit context: the audit trail over the log (GET /audit) and its pure folds, shared with the CLI.
import { Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail.js';
import { GetAuditController } from './queries/get-audit/get-audit.controller.js';
import { GetAuditHandler } from './queries/get-audit/get-audit.query.js';

export const AUDIT_CONTROLLERS = [GetAuditController];

export const AUDIT_QUERY_HANDLERS = [GetAuditHandler];

@Module({
  controllers: AUDIT_CONTROLLERS,
  providers: [AuditTrail, ...AUDIT_QUERY_HANDLERS],
  exports: [AuditTrail],
})
export class AuditModule {}
