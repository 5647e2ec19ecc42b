// Who changed what, when and why, from the audit trail's read model (paged by log position through its indexes; it
// first waits, bounded, until the audit projection has applied the log as it stands when the request arrives, so a
// change made just before is listed). Admins read everything but another user's private personal Space and what is
// inside it; another key reads a Space it may change and what is inside it (the policy's `audit.read`, with the
// Space's creator and members as the log has them, so a deleted Space still counts).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { ReadYourWritesBus } from '#eventsourcing';
import { permits, demand, type Caller, type SpaceRole } from '#access';
import { AuditTrail, type AuditPage } from '../../audit-trail.js';
import type { AuditEntry, AuditGraph } from '../../audit-fold.js';
import { AuditEntriesReader } from '../../audit-entries.reader.js';
import { AUDIT_ENTRIES_READ_MODEL } from '../../audit-read-model.js';
import type { AuditQuery } from './get-audit.schema.js';

export class GetAudit extends Query<AuditPage> {
  constructor(
    readonly query: z.output<typeof AuditQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

/**
 * Whether the caller may read the audit of `resourceId`: a Space it may change (`audit.read`) that the resource is or
 * lives inside; admins also what lives in no Space (keys, users, Apps). A private personal Space is its user's alone,
 * admins included, as everywhere else in the API: nothing inside another user's is theirs to read.
 */
export async function mayAuditResource(
  graph: AuditGraph,
  resourceId: string,
  caller: Caller,
): Promise<boolean> {
  const seen = new Set<string>();
  const stack = [resourceId];
  let inSpace = false;
  let allowed = false;
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const first = await graph.firstEventOf(id);
    if (first?.type === 'SpaceCreated') {
      const actor = first.actor;
      // With its members as folded: its owners audit it (a Space from before members: its creator).
      const { members, personalOf } = await graph.membershipOf(id);
      const space = {
        id,
        createdByApiKeyId: actor.kind === 'apiKey' ? actor.id : null,
        createdByUserId: actor.kind === 'user' ? actor.id : null,
        members: members as Readonly<Record<string, SpaceRole>>,
        personalOf,
      };
      const decision = permits(caller, 'audit.read', space);
      if (personalOf && !decision) return false;
      inSpace = true;
      allowed ||= decision;
    }
    stack.push(...(await graph.parentsOf(id)));
  }
  return allowed || (!inSpace && permits(caller, 'audit.read', null));
}

/** The entries of a page the caller may read: each resource asked once (a page repeats the same few). */
async function readableEntries(
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
    if (!query.resourceId)
      demand(
        caller,
        'audit.read',
        null,
        'only admins read the whole audit trail: name a Space you may change (resourceId)',
      );
    await this.writes.settleAtHead([AUDIT_ENTRIES_READ_MODEL]);
    const graph = this.entries.graph();
    // Unknown and unreachable resources answer alike, so no key learns that an id exists.
    if (query.resourceId && !(await mayAuditResource(graph, query.resourceId, caller)))
      throw new NotFoundError('Resource', query.resourceId);
    const { entries, more } = await this.entries.page(filters);
    // The whole trail (admins) leaves out what lies in another user's private personal Space.
    const readable = query.resourceId ? entries : await readableEntries(graph, entries, caller);
    return {
      data: await this.trail.redact(readable),
      nextCursor: more ? String(entries.at(-1)!.position) : null,
    };
  }
}
