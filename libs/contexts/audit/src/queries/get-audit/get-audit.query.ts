// Who changed what, when and why, from the audit trail's read model (paged by log position through its indexes; it
// first waits, bounded, until the audit projection has applied the log as it stands when the request arrives, so a
// change made just before is listed). Admins read everything but another user's private personal Space and what is
// inside it; another key reads a Space it may change and what is inside it (the policy's `audit.read`, asked by the
// gate through the AuditResolver).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ReadYourWritesBus } from '#eventsourcing';
import { Requires, type Caller } from '#access';
import { AuditTrail, type AuditPage } from '../../audit-trail.js';
import type { AuditEntry, AuditGraph } from '../../audit-fold.js';
import { AuditEntriesReader } from '../../audit-entries.reader.js';
import { AUDIT_ENTRIES_READ_MODEL } from '../../audit-read-model.js';
import { AuditResolver, mayAuditResource } from '../../audit-resolver.js';
import type { AuditQuery } from './get-audit.schema.js';

export { mayAuditResource };

@Requires(AuditResolver, (audit, { query }: GetAudit) => audit.read(query.resourceId))
export class GetAudit extends Query<AuditPage> {
  constructor(
    readonly query: z.output<typeof AuditQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

/** The entries of a page the caller may read: each resource asked once (a page repeats the same few). */
export async function readableEntries(
  graph: AuditGraph,
  entries: readonly AuditEntry[],
  caller: Caller,
): Promise<AuditEntry[]> {
  const verdicts = new Map<string, Promise<boolean>>();
  const readable: AuditEntry[] = [];
  for (const entry of entries) {
    const id = entry.resource.id;
    if (!verdicts.has(id)) verdicts.set(id, mayAuditResource(graph, id, caller));
    if (await verdicts.get(id)) readable.push(entry);
  }
  return readable;
}

@QueryHandler(GetAudit)
export class GetAuditHandler implements IQueryHandler<GetAudit> {
  constructor(
    private readonly entries: AuditEntriesReader,
    private readonly trail: AuditTrail,
    private readonly writes: ReadYourWritesBus,
  ) {}

  async execute({ query, caller }: GetAudit): Promise<AuditPage> {
    const { cursor, ...rest } = query;
    const filters = { ...rest, ...(cursor !== undefined ? { cursor: Number(cursor) } : {}) };
    await this.writes.settleAtHead([AUDIT_ENTRIES_READ_MODEL]);
    const { entries, more } = await this.entries.page(filters);
    // The whole trail (admins) leaves out what lies in another user's private personal Space.
    const readable = query.resourceId
      ? entries
      : await readableEntries(this.entries.graph(), entries, caller);
    return {
      data: await this.trail.redact(readable),
      nextCursor: more ? String(entries.at(-1)!.position) : null,
    };
  }
}
