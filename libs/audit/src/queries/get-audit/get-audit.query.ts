// Who changed what, when and why, from the audit trail's read model (paged by log position through its indexes; it
// first waits, bounded, until the audit projection has applied the log as it stands when the request arrives, so a
// change made just before is listed). Admins read everything; another key reads a Space it may change and what is
// inside it (the policy's `audit.read`, with the Space's creator and members as the log has them, so a deleted Space
// still counts).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { ReadYourWritesBus } from '#eventsourcing';
import { assertAllowed, authorize, type Caller, type SpaceRole } from '#identity';
import { AuditTrail, type AuditPage } from '../../audit-trail.js';
import type { AuditGraph } from '../../audit-fold.js';
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

/** Whether a non-admin caller may change a Space that `resourceId` is, or lives inside. */
export async function mayAuditResource(
  graph: AuditGraph,
  resourceId: string,
  caller: Caller,
): Promise<boolean> {
  const seen = new Set<string>();
  const stack = [resourceId];
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
      if (authorize(caller, 'audit.read', space).allow) return true;
    }
    stack.push(...(await graph.parentsOf(id)));
  }
  return false;
}

@QueryHandler(GetAudit)
export class GetAuditHandler implements IQueryHandler<GetAudit> {
  constructor(
    private readonly entries: AuditEntriesReader,
    private readonly trail: AuditTrail,
    private readonly writes: ReadYourWritesBus,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ query, caller }: GetAudit): Promise<AuditPage> {
    const { cursor, ...rest } = query;
    const filters = { ...rest, ...(cursor !== undefined ? { cursor: Number(cursor) } : {}) };
    if (!query.resourceId)
      assertAllowed(
        caller,
        'audit.read',
        null,
        'only admins read the whole audit trail: name a Space you may change (resourceId)',
      );
    await this.writes.settle(await this.eventStore.headPosition(), [AUDIT_ENTRIES_READ_MODEL]);
    // Unknown and unreachable resources answer alike, so no key learns that an id exists.
    if (
      query.resourceId &&
      !authorize(caller, 'audit.read', null).allow &&
      !(await mayAuditResource(this.entries.graph(), query.resourceId, caller))
    )
      throw new NotFoundError('Resource', query.resourceId);
    const { entries, more } = await this.entries.page(filters);
    return {
      data: await this.trail.redact(entries),
      nextCursor: more ? String(entries.at(-1)!.position) : null,
    };
  }
}
