// Builds the audit trail's read model (libs/contexts/audit/src/audit-read-model.ts) from every event of the log, whatever its
// stream (it reads EVERY_EVENT): per event its entry, derived with the fold's own `auditEntryOf` from the stream's (or
// item's) folded fields kept here, and what the filters and the access check read (containment links, creations,
// Space memberships, API key owners, the event types seen). Values are scrubbed before they are kept (`scrub`: no
// secret, no sealed ciphertext). Idempotent: each document is written whole once per event, and a replayed event
// whose writes a document has already seen is skipped by the store.
import { EVERY_EVENT, type ProjectionContext, type Projector } from '#eventsourcing';
import type { EventEnvelope } from '#kernel';
import type { StoredDocument, WriteOp } from '#read-store';
import {
  AUDIT_ENTRIES,
  AUDIT_ENTRIES_READ_MODEL,
  AUDIT_EVENT_TYPES,
  AUDIT_EVENT_TYPES_READ_MODEL,
  AUDIT_FIELD_READINGS,
  AUDIT_ITEM_FIELDS,
  AUDIT_LINKS,
  AUDIT_LINKS_READ_MODEL,
  AUDIT_PROJECTION,
  AUDIT_RESOURCES,
  AUDIT_RESOURCES_READ_MODEL,
  AUDIT_SKIPPED_EVENT_TYPES,
  AUDIT_STATES,
  AUDIT_STATES_READ_MODEL,
  auditEntryId,
  auditEntryOf,
  auditLinkId,
  auditStateId,
  auditSubjectOf,
  keyIssued,
  membersAfter,
  personalOwnerOf,
  spaceIdOf,
  streamIdParents,
  type AuditEntryView,
  type AuditFoldOptions,
  type AuditResourceView,
  type AuditStateView,
} from '#audit';

const OPTIONS: AuditFoldOptions = {
  changesByStreamType: AUDIT_FIELD_READINGS,
  itemFieldByStreamType: AUDIT_ITEM_FIELDS,
};

const newResource = (id: string): AuditResourceView => ({
  id,
  first: null,
  members: {},
  personalOf: null,
  keyOwner: null,
});

const upsert = (collection: string, doc: StoredDocument & Record<string, unknown>): WriteOp => ({
  kind: 'upsert',
  collection,
  doc,
});

async function project(event: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
  if (AUDIT_SKIPPED_EVENT_TYPES.has(event.type)) return [];
  const ops: WriteOp[] = [];
  // The entities this event changes, read once and written once (a document is written at most once per event).
  const resources = new Map<string, { view: AuditResourceView; changed: boolean }>();
  const resource = async (id: string) => {
    let known = resources.get(id);
    if (!known) {
      const stored = await context.get<AuditResourceView>(AUDIT_RESOURCES, id);
      known = { view: stored ?? newResource(id), changed: false };
      resources.set(id, known);
    }
    return known;
  };
  const change = async (id: string, patch: Partial<AuditResourceView>) => {
    const known = await resource(id);
    known.view = { ...known.view, ...patch };
    known.changed = true;
  };
  const link = async (child: string, parents: readonly string[]) => {
    for (const parent of new Set(parents)) {
      const id = auditLinkId(child, parent);
      if (!(await context.get(AUDIT_LINKS, id))) ops.push(upsert(AUDIT_LINKS, { id, child, parent }));
    }
  };

  const subject = auditSubjectOf(event, OPTIONS);
  const own = await resource(subject.resource.id);
  if (own.view.first === null) {
    await change(subject.resource.id, { first: { type: event.type, actor: event.metadata.actor } });
    await link(subject.resource.id, streamIdParents(subject.resource.id));
  }
  await link(subject.resource.id, subject.parentIds);
  const spaceId = spaceIdOf(event);
  if (spaceId) {
    const personalOf = personalOwnerOf(event);
    if (personalOf) await change(spaceId, { personalOf });
    const members = (await resource(spaceId)).view.members;
    const next = membersAfter(event, members);
    if (next !== members) await change(spaceId, { members: next });
  }
  const issued = keyIssued(event);
  if (issued) await change(issued.apiKeyId, { keyOwner: issued.owner });
  const actor = event.metadata.actor;
  const keyOwner =
    actor.kind === 'apiKey' ? ((await resource(actor.id)).view.keyOwner ?? undefined) : undefined;

  const stateId = auditStateId(event.streamId, subject.itemId);
  const before = (await context.get<AuditStateView>(AUDIT_STATES, stateId))?.fields ?? {};
  const { entry, after } = auditEntryOf(event, subject, before, keyOwner, OPTIONS);
  ops.push(upsert(AUDIT_STATES, { id: stateId, fields: after } satisfies AuditStateView));
  ops.push(
    upsert(AUDIT_ENTRIES, {
      id: auditEntryId(event.position),
      position: event.position,
      at: Date.parse(entry.occurredAt),
      resourceType: entry.resource.type,
      resourceId: entry.resource.id,
      itemId: entry.resource.itemId ?? null,
      actorId: entry.actor.id,
      actorUserId: entry.actor.userId,
      correlationId: entry.correlationId,
      eventType: entry.eventType,
      entry,
    } satisfies AuditEntryView as unknown as StoredDocument & Record<string, unknown>),
  );
  if (!(await context.get(AUDIT_EVENT_TYPES, event.type)))
    ops.push(upsert(AUDIT_EVENT_TYPES, { id: event.type }));
  for (const { view, changed } of resources.values())
    if (changed)
      ops.push(upsert(AUDIT_RESOURCES, view as unknown as StoredDocument & Record<string, unknown>));
  return ops;
}

export const auditProjector: Projector = {
  name: AUDIT_PROJECTION,
  // 2: model calls' usage records are no longer entries (AUDIT_SKIPPED_EVENT_TYPES).
  version: 2,
  collections: [
    AUDIT_ENTRIES_READ_MODEL,
    AUDIT_STATES_READ_MODEL,
    AUDIT_RESOURCES_READ_MODEL,
    AUDIT_LINKS_READ_MODEL,
    AUDIT_EVENT_TYPES_READ_MODEL,
  ],
  eventTypes: EVERY_EVENT,
  project,
};
