// An export of the audit trail for an auditor: the entries GET /audit selects with the same filters and the same
// access (admins the whole trail but another user's private personal Space; a Space's changers that Space and what is
// inside it), oldest first, every page of them, as a hash chain (hash-chain.ts: each line hashes the one before, a
// trailer names the range and the head hash) that `audit verify` and the web app's verify check. Bounded: a selection
// of more than EXPORT_MAX_ENTRIES entries is refused (400 `export_too_large`, narrow it with from/to) rather than
// cut, since a cut export would verify as complete.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ValidationError } from '#kernel';
import { ReadYourWritesBus } from '#eventsourcing';
import { Requires, type Caller } from '#access';
import { AuditTrail } from '../../audit-trail.js';
import { AuditEntriesReader } from '../../audit-entries.reader.js';
import { AUDIT_ENTRIES_READ_MODEL } from '../../audit-read-model.js';
import { AuditResolver } from '../../audit-resolver.js';
import { chainLines } from '../../hash-chain.js';
import { readableEntries } from '../get-audit/get-audit.query.js';
import type { AuditExportQuery } from './export-audit.schema.js';

export const EXPORT_MAX_ENTRIES = 50_000;
const PAGE = 500;

@Requires(AuditResolver, (audit, { query }: ExportAudit) => audit.read(query.resourceId))
export class ExportAudit extends Query<string> {
  constructor(
    readonly query: z.output<typeof AuditExportQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ExportAudit)
export class ExportAuditHandler implements IQueryHandler<ExportAudit> {
  constructor(
    private readonly entries: AuditEntriesReader,
    private readonly trail: AuditTrail,
    private readonly writes: ReadYourWritesBus,
  ) {}

  /** The export's text: one JSON line per entry, then the trailer. */
  async execute({ query, caller }: ExportAudit): Promise<string> {
    await this.writes.settleAtHead([AUDIT_ENTRIES_READ_MODEL]);
    const selected = [];
    let cursor: number | undefined;
    for (;;) {
      const { entries, more } = await this.entries.page({
        ...query,
        order: 'oldest',
        limit: PAGE,
        ...(cursor !== undefined ? { cursor } : {}),
      });
      selected.push(
        ...(query.resourceId ? entries : await readableEntries(this.entries.graph(), entries, caller)),
      );
      if (selected.length > EXPORT_MAX_ENTRIES)
        throw new ValidationError(
          'export_too_large',
          `the selection holds more than ${EXPORT_MAX_ENTRIES} entries: narrow it with from and to`,
          'from',
        );
      if (!more) break;
      cursor = entries.at(-1)!.position;
    }
    return `${chainLines(await this.trail.redact(selected)).join('\n')}\n`;
  }
}
