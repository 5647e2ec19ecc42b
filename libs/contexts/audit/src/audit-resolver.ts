// What the policy reads to let a principal read the audit trail, loaded for the gate (#access enforcement): the whole
// trail asks `audit.read` of nothing (admins); a resource's trail asks it of the Spaces the resource is or lives
// inside, with their creator and members as the log has them (so a deleted Space still counts). A private personal
// Space is its user's alone, admins included: nothing inside another user's is theirs to read.
import { Injectable } from '@nestjs/common';
import { NotFoundError } from '#kernel';
import { ReadYourWritesBus } from '#eventsourcing';
import { allowed, ask, either, type Ask, type Caller, type SpaceOwnership, type SpaceRole } from '#access';
import type { AuditGraph } from './audit-fold.js';
import { AuditEntriesReader } from './audit-entries.reader.js';
import { AUDIT_ENTRIES_READ_MODEL } from './audit-read-model.js';

/** The Spaces `resourceId` is or lives inside, as the log has them. */
export async function auditedSpaces(graph: AuditGraph, resourceId: string): Promise<SpaceOwnership[]> {
  const seen = new Set<string>();
  const stack = [resourceId];
  const spaces: SpaceOwnership[] = [];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const first = await graph.firstEventOf(id);
    if (first?.type === 'SpaceCreated') {
      const actor = first.actor;
      // With its members as folded: its owners audit it (a Space from before members: its creator).
      const { members, personalOf } = await graph.membershipOf(id);
      spaces.push({
        id,
        createdByApiKeyId: actor.kind === 'apiKey' ? actor.id : null,
        createdByUserId: actor.kind === 'user' ? actor.id : null,
        members: members as Readonly<Record<string, SpaceRole>>,
        personalOf,
      });
    }
    stack.push(...(await graph.parentsOf(id)));
  }
  return spaces;
}

/**
 * The asks of reading the audit of a resource inside `spaces`: what lies in no Space, admins (`audit.read` of
 * nothing); inside a private personal Space, its user; else a Space it lives inside that the principal may change.
 * A resource that moved lives inside several, and any of them grants.
 */
export function auditAsks(spaces: readonly SpaceOwnership[], denied: Ask['denied']): readonly Ask[] {
  if (spaces.length === 0) return [ask('audit.read', null, denied)];
  const personal = spaces.filter((space) => space.personalOf);
  if (personal.length > 0) return personal.map((space) => ask('audit.read', space, denied));
  const [first, ...others] = spaces.map((space) => ask('audit.read', space, denied));
  return [either(first!, ...others)];
}

/** Whether the caller may read the audit of `resourceId`: what a page of the whole trail shows (see auditAsks). */
export async function mayAuditResource(
  graph: AuditGraph,
  resourceId: string,
  caller: Caller,
): Promise<boolean> {
  return allowed(auditAsks(await auditedSpaces(graph, resourceId), 'not shown'), caller);
}

/** Loads what the gate asks of a read of the audit trail. */
@Injectable()
export class AuditResolver {
  constructor(
    private readonly entries: AuditEntriesReader,
    private readonly writes: ReadYourWritesBus,
  ) {}

  /** The whole trail (admins), or the trail of one resource (404 when unknown or out of reach: they answer alike). */
  async read(resourceId: string | undefined): Promise<readonly Ask[]> {
    if (!resourceId)
      return [
        ask(
          'audit.read',
          null,
          'only admins read the whole audit trail: name a Space you may change (resourceId)',
        ),
      ];
    // A resource made just before the request is in the trail: the projection catches up first.
    await this.writes.settleAtHead([AUDIT_ENTRIES_READ_MODEL]);
    const spaces = await auditedSpaces(this.entries.graph(), resourceId);
    return auditAsks(spaces, () => new NotFoundError('Resource', resourceId));
  }
}
