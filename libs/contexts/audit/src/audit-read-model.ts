// The audit trail's read model (issue 25 §1): one entry per event of the whole log, built by projections/audit (an
// all-streams projector) with the same derivation as the fold (`auditEntryOf`), so `GET /audit` pages it by log
// position through indexes instead of folding the log per request. Beside the entries: each stream's (or item's)
// folded fields (the "before" of its next event), each entity's creation and Space membership, the containment links
// between entities, and the event types seen (what an `action` filter in words selects). Values are kept scrubbed:
// no secret field, and sealed content only as its key id and a digest (`scrub`), so no erasable content is stored,
// not even encrypted; a page is redacted on the way out ("sealed", or "erased" once the key is destroyed).
import { defineReadModel } from '#eventsourcing';
import type { Actor } from '#kernel';
import type { AuditEntry, KeyOwner } from './audit-fold.js';

export const AUDIT_PROJECTION = 'audit-trail';

export const AUDIT_ENTRIES = 'audit_entries';
export const AUDIT_STATES = 'audit_states';
export const AUDIT_RESOURCES = 'audit_resources';
export const AUDIT_LINKS = 'audit_links';
export const AUDIT_EVENT_TYPES = 'audit_event_types';

/** An entry, with the fields its filters read at the top (the store indexes top-level fields). */
export interface AuditEntryView {
  /** The log position, zero-padded: the id's order is the log's, so pages are read in the primary key's order. */
  readonly id: string;
  readonly position: number;
  /** occurredAt in epoch milliseconds (the `from`/`to` filters). */
  readonly at: number;
  readonly resourceType: string;
  readonly resourceId: string;
  readonly itemId: string | null;
  readonly actorId: string;
  /** The person behind the actor (an API key's owner, a user themself); null for Apps and the platform. */
  readonly actorUserId: string | null;
  readonly correlationId: string;
  readonly eventType: string;
  /** The entry as the route answers it, before redaction. */
  readonly entry: AuditEntry;
}

/** The folded fields of a stream, or of one item of a many-item stream. */
export interface AuditStateView {
  /** The stream id, or `<streamId>|<itemId>`. */
  readonly id: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** An entity named by the log: its stream's first event, its Space membership, the owner of an API key. */
export interface AuditResourceView {
  readonly id: string;
  /** Its stream's first event (its creation); null for an entity only named by others' events so far. */
  readonly first: { readonly type: string; readonly actor: Actor } | null;
  readonly members: Readonly<Record<string, string>>;
  readonly personalOf: string | null;
  readonly keyOwner: KeyOwner | null;
}

/** `child` lives inside `parent` (an event of the child's stream named the parent, or its stream id does). */
export interface AuditLinkView {
  readonly id: string;
  readonly child: string;
  readonly parent: string;
}

export interface AuditEventTypeView {
  /** The event type. */
  readonly id: string;
}

export const AUDIT_ENTRIES_READ_MODEL = defineReadModel<AuditEntryView>({
  name: AUDIT_ENTRIES,
  projection: AUDIT_PROJECTION,
  // Each filter's field, then the id (the log position): an equality filter reads its page in log order.
  indexes: [
    'resourceId',
    'itemId',
    'actorId',
    'actorUserId',
    'correlationId',
    'resourceType',
    'eventType',
  ].map((field) => ({ fields: [field, 'id'] })),
});

export const AUDIT_STATES_READ_MODEL = defineReadModel<AuditStateView>({
  name: AUDIT_STATES,
  projection: AUDIT_PROJECTION,
});

export const AUDIT_RESOURCES_READ_MODEL = defineReadModel<AuditResourceView>({
  name: AUDIT_RESOURCES,
  projection: AUDIT_PROJECTION,
});

export const AUDIT_LINKS_READ_MODEL = defineReadModel<AuditLinkView>({
  name: AUDIT_LINKS,
  projection: AUDIT_PROJECTION,
  indexes: [{ fields: ['parent'] }, { fields: ['child'] }],
});

export const AUDIT_EVENT_TYPES_READ_MODEL = defineReadModel<AuditEventTypeView>({
  name: AUDIT_EVENT_TYPES,
  projection: AUDIT_PROJECTION,
});

/** Positions as ids: zero-padded so the ids sort as the positions do. */
export const auditEntryId = (position: number): string => String(position).padStart(16, '0');

export const auditStateId = (streamId: string, itemId: string | undefined): string =>
  itemId === undefined ? streamId : `${streamId}|${itemId}`;

export const auditLinkId = (child: string, parent: string): string => `${child}>${parent}`;
