// GET /audit/export: GET /audit's filters without paging (the export holds every entry they select, oldest first).
import { AuditQuery } from '../get-audit/get-audit.schema.js';

export const AuditExportQuery = AuditQuery.omit({ order: true, cursor: true, limit: true });
