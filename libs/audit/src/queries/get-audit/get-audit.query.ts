// Who changed what, when and why. Admins read everything; another key reads a Space it may change and what is inside
// it (the policy's `audit.read`, with the Space's creator read from the log so a deleted Space still counts).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { assertAllowed, authorize, type Caller, type SpaceRole } from '#identity';
import { AuditTrail, type AuditPage } from '../../audit-trail.js';
import type { AuditFold } from '../../audit-fold.js';
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
export function mayAuditResource(fold: AuditFold, resourceId: string, caller: Caller): boolean {
  const seen = new Set<string>();
  const stack = [resourceId];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const first = fold.firstEventOf(id);
    if (first?.type === 'SpaceCreated') {
      const actor = first.metadata.actor;
      // With its members as folded: its owners audit it (a Space from before members: its creator).
      const { members, personalOf } = fold.membershipOf(id);
      const space = {
        id,
        createdByApiKeyId: actor.kind === 'apiKey' ? actor.id : null,
        createdByUserId: actor.kind === 'user' ? actor.id : null,
        members: members as Readonly<Record<string, SpaceRole>>,
        personalOf,
      };
      if (authorize(caller, 'audit.read', space).allow) return true;
    }
    stack.push(...fold.parentsOf(id));
  }
  return false;
}

@QueryHandler(GetAudit)
export class GetAuditHandler implements IQueryHandler<GetAudit> {
  constructor(private readonly trail: AuditTrail) {}

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
    const { entries, fold } = await this.trail.select(filters);
    // Unknown and unreachable resources answer alike, so no key learns that an id exists.
    if (
      query.resourceId &&
      !authorize(caller, 'audit.read', null).allow &&
      !mayAuditResource(fold, query.resourceId, caller)
    )
      throw new NotFoundError('Resource', query.resourceId!);
    return this.trail.page(filters, entries);
  }
}
