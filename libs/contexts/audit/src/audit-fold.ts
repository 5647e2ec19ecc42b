// The audit trail's pure core: folds the global log, in log order, into audit entries. Each stream's state is the
// fold of its events (field → value), so an entry's before → after values are derived by folding, never stored twice.
// Which entity lives inside which (a document in a Space, a conversation of an Agent) is learnt from the ids an
// event's data names, so "everything inside a Space" needs no table per context. Secrets are dropped; content sealed
// for crypto-shredding is never shown (the caller marks it "sealed" or, once its key is destroyed, "erased").
// Over 300 lines on purpose: one pure fold of the whole log; containment, field folding and redaction each
// read the state the others keep.
import { createHash } from 'node:crypto';
import type { Actor, EventEnvelope } from '#kernel';
import { actionOf } from './audit-actions.js';

/** Where the change came from: the metadata's request source, else an identity event's own `source`. */
export function sourceAddressOf(event: EventEnvelope): string | null {
  if (event.metadata.source) return event.metadata.source.address;
  const source = (event.data as { source?: { address?: unknown } } | null)?.source;
  return source && typeof source.address === 'string' ? source.address : null;
}

export type AuditActorKind = 'user' | 'apiKey' | 'app' | 'platform';
export type CredentialKind = 'apiKey' | 'adminApiKey' | 'session' | 'appToken' | 'none';

export interface AuditActor {
  readonly kind: AuditActorKind;
  readonly id: string;
  /** The person behind an API key (its owner), when known. */
  readonly userId: string | null;
}

export interface AuditChange {
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

export interface AuditEntry {
  readonly position: number;
  readonly eventId: string;
  readonly occurredAt: string;
  readonly actor: AuditActor;
  readonly credentialKind: CredentialKind;
  /**
   * The request's source address: from the event's metadata (every change a request made), or from an identity
   * event's own `source` (recorded before the metadata carried it); null for the platform's own changes.
   */
  readonly sourceAddress: string | null;
  readonly action: string;
  readonly eventType: string;
  readonly resource: {
    readonly type: string;
    readonly id: string;
    readonly streamId: string;
    readonly revision: number;
    /** The item of the stream the event is about (a memory of a bucket, a message of a conversation), if any. */
    readonly itemId?: string;
  };
  readonly changes: readonly AuditChange[];
  readonly correlationId: string;
  readonly causationId: string | null;
}

/** A field whose value is a secret (or a secret's hash): never shown, not even as a change. */
const SECRET_FIELD =
  /^(keyHash|secretHash|tokenHash|passwordHash|password|secret|clientSecret|token|apiKey)$/i;
/** Values sealed with a data key (libs/adapters/key-store ContentCipher): `sealed:v1:<keyId>:…`. */
const SEALED = /^sealed:v\d+:([^:]+):/;

export const SEALED_MARK = 'sealed';
export const ERASED_MARK = 'erased';

/**
 * Splits a stream id into the resource it is about: the words before the first entity id (`prefix_…`) are its type
 * (`agent-agt_1` → agent agt_1, `memory-bucket-agt_1-usr_2` → memory-bucket agt_1-usr_2, `conversation-sandbox-cnv_1`
 * → conversation-sandbox cnv_1); a stream naming no entity id splits at its first dash.
 */
export function resourceOfStream(streamId: string): { type: string; id: string } {
  const parts = streamId.split('-');
  const at = parts.findIndex((part) => part.includes('_'));
  if (at > 0) return { type: parts.slice(0, at).join('-'), id: parts.slice(at).join('-') };
  const dash = streamId.indexOf('-');
  return dash < 0
    ? { type: streamId, id: streamId }
    : { type: streamId.slice(0, dash), id: streamId.slice(dash + 1) };
}

/** The key ids of every sealed value inside `value` (deep). */
export function sealedKeyIds(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    const match = SEALED.exec(value);
    if (match) into.add(match[1]!);
  } else if (Array.isArray(value)) for (const item of value) sealedKeyIds(item, into);
  else if (value && typeof value === 'object')
    for (const item of Object.values(value)) sealedKeyIds(item, into);
  return into;
}

/** A copy of `value` with secrets dropped and sealed content replaced by "sealed" or "erased" (key destroyed). */
export function redact(value: unknown, liveKeyIds: ReadonlySet<string>): unknown {
  if (typeof value === 'string') {
    const match = SEALED.exec(value);
    if (!match) return value;
    return liveKeyIds.has(match[1]!) ? SEALED_MARK : ERASED_MARK;
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, liveKeyIds));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_FIELD.test(key)) continue;
      out[key] = redact(item, liveKeyIds);
    }
    return out;
  }
  return value;
}

/** The fields an event sets on its stream's state: its data without the stream's own id. */
export type FieldChanges = (event: EventEnvelope) => Readonly<Record<string, unknown>>;

const ownIdField = (type: string): string => `${type.replace(/[^a-z0-9]/gi, '')}Id`.toLowerCase();

/** The default reading of an event: every data field except the one naming the stream's own id. */
export const dataFields: FieldChanges = (event) => {
  const data = event.data;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
  const own = ownIdField(resourceOfStream(event.streamId).type);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (key.toLowerCase() !== own) out[key] = value;
  return out;
};

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Ids named by an event's data (any `…Id` field holding a string): the entities its stream lives inside. */
function referencedIds(event: EventEnvelope, ownId: string, itemId: string | undefined): string[] {
  const data = event.data;
  if (!data || typeof data !== 'object') return [];
  const ids: string[] = [];
  for (const [key, value] of Object.entries(data))
    if (
      /Id$/.test(key) &&
      typeof value === 'string' &&
      value !== ownId &&
      value !== itemId &&
      value.length > 0
    )
      ids.push(value);
  return ids;
}

export interface AuditFoldOptions {
  /** How an event changes its stream's state, per stream type (`agent`, `space`, …); default: its data fields. */
  readonly changesByStreamType?: Readonly<Record<string, FieldChanges>>;
  /**
   * Streams holding many items (a bucket's memories, a conversation's messages, a day's model calls): the data field
   * naming the item. Its events are folded per item, so one memory's text is never shown as another's "before".
   */
  readonly itemFieldByStreamType?: Readonly<Record<string, string>>;
}

/** An API key's owner, as `ApiKeyIssued` names it: the person behind the key in entries it acted in. */
export interface KeyOwner {
  readonly userId: string;
  readonly isAdmin: boolean;
}

/** What an event is about: its resource, the item of a many-item stream, and the key of its folded state. */
export interface AuditSubject {
  readonly resource: { readonly type: string; readonly id: string };
  readonly itemId: string | undefined;
  /** The stream, or the stream and the item: whose folded fields the event changes. */
  readonly stateKey: string;
  /** The entities the resource lives inside, as this event names them (its data's `…Id` fields). */
  readonly parentIds: readonly string[];
}

/** What an event is about (see AuditSubject). */
export function auditSubjectOf(event: EventEnvelope, options: AuditFoldOptions = {}): AuditSubject {
  const resource = resourceOfStream(event.streamId);
  const itemField = options.itemFieldByStreamType?.[resource.type];
  const itemValue = itemField ? (event.data as Record<string, unknown> | null)?.[itemField] : undefined;
  const itemId = typeof itemValue === 'string' ? itemValue : undefined;
  return {
    resource,
    itemId,
    stateKey: itemId === undefined ? event.streamId : `${event.streamId}\u0000${itemId}`,
    parentIds: referencedIds(event, resource.id, itemId),
  };
}

/** The entities a stream's resource id names (a memory bucket `agt_1-usr_2` lives inside agt_1 and usr_2). */
export function streamIdParents(resourceId: string): string[] {
  const parts = resourceId.split('-').filter((part) => part.includes('_'));
  return parts.length < 2 ? [] : parts;
}

/** The owner an `ApiKeyIssued` names, if the event is one. */
export function keyIssued(event: EventEnvelope): { apiKeyId: string; owner: KeyOwner } | null {
  if (event.type !== 'ApiKeyIssued') return null;
  const data = event.data as { apiKeyId?: string; ownerUserId?: string; isAdmin?: boolean };
  return data.apiKeyId && data.ownerUserId
    ? { apiKeyId: data.apiKeyId, owner: { userId: data.ownerUserId, isAdmin: data.isAdmin === true } }
    : null;
}

/** A Space's members by user id, after a membership event (unchanged by any other event). */
export function membersAfter(
  event: EventEnvelope,
  members: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const data = event.data as { userId?: string; role?: string } | null;
  if (!data?.userId || !event.type.startsWith('SpaceMember')) return members;
  const next = { ...members };
  if (event.type === 'SpaceMemberRemoved') delete next[data.userId];
  else if (data.role) next[data.userId] = data.role;
  return next;
}

/** The Space an event is about, when it names one. */
export const spaceIdOf = (event: EventEnvelope): string | null => {
  const spaceId = (event.data as { spaceId?: unknown } | null)?.spaceId;
  return typeof spaceId === 'string' && spaceId.length > 0 ? spaceId : null;
};

/** The personal owner a `SpaceCreated` names. */
export const personalOwnerOf = (event: EventEnvelope): string | null => {
  if (event.type !== 'SpaceCreated') return null;
  const personalOf = (event.data as { personalOf?: unknown } | null)?.personalOf;
  return typeof personalOf === 'string' ? personalOf : null;
};

/**
 * Values as the audit keeps them: secret fields dropped (deep), sealed content reduced to its key id and a digest of
 * its ciphertext (`sealed:v1:<keyId>:#<digest>`: still "sealed"/"erased" by its key, still compared by content, and
 * no ciphertext of erasable content kept). The audit read model stores only such values.
 */
export function scrub(value: unknown): unknown {
  if (typeof value === 'string') {
    const match = SEALED.exec(value);
    if (!match) return value;
    return `${match[0]}#${createHash('sha256').update(value).digest('base64url').slice(0, 22)}`;
  }
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (!SECRET_FIELD.test(key)) out[key] = scrub(item);
    return out;
  }
  return value;
}

/**
 * The entry of one event, given the folded fields of its stream (or item) before it and the owner of the key that
 * acted (if an API key did): the one derivation the fold and the audit read model share. Answers the fields after.
 */
export function auditEntryOf(
  event: EventEnvelope,
  subject: AuditSubject,
  before: Readonly<Record<string, unknown>>,
  keyOwner: KeyOwner | undefined,
  options: AuditFoldOptions = {},
): { entry: AuditEntry; after: Record<string, unknown> } {
  const reading = options.changesByStreamType?.[subject.resource.type] ?? dataFields;
  const set = scrub(reading(event)) as Record<string, unknown>;
  const after = { ...before, ...set };
  const changes: AuditChange[] = [];
  for (const [field, value] of Object.entries(set))
    if (field in before ? !same(before[field], value) : value !== null && value !== undefined)
      changes.push({ field, before: field in before ? before[field] : null, after: value });
  const entry: AuditEntry = {
    position: event.position,
    eventId: event.id,
    occurredAt: event.metadata.occurredAt,
    ...actorOf(event, keyOwner),
    sourceAddress: sourceAddressOf(event),
    action: actionOf(event.type),
    eventType: event.type,
    resource: {
      ...subject.resource,
      streamId: event.streamId,
      revision: event.revision,
      ...(subject.itemId !== undefined ? { itemId: subject.itemId } : {}),
    },
    changes,
    correlationId: event.metadata.correlationId,
    causationId: event.metadata.causationId,
  };
  return { entry, after };
}

function actorOf(
  event: EventEnvelope,
  owner: KeyOwner | undefined,
): { actor: AuditActor; credentialKind: CredentialKind } {
  const { kind, id } = event.metadata.actor;
  switch (kind) {
    case 'apiKey':
      return {
        actor: { kind: 'apiKey', id, userId: owner?.userId ?? null },
        credentialKind: owner?.isAdmin ? 'adminApiKey' : 'apiKey',
      };
    case 'user':
      return { actor: { kind: 'user', id, userId: id }, credentialKind: 'session' };
    case 'app':
      return { actor: { kind: 'app', id, userId: null }, credentialKind: 'appToken' };
    default:
      return { actor: { kind: 'platform', id, userId: null }, credentialKind: 'none' };
  }
}

/** What deciding a non-admin's access to a resource reads: creations, memberships and containment links. */
export interface AuditGraph {
  /** The first event of an entity's stream (its creation): its type and actor. */
  firstEventOf(id: string): Promise<{ readonly type: string; readonly actor: Actor } | undefined>;
  membershipOf(
    spaceId: string,
  ): Promise<{ members: Readonly<Record<string, string>>; personalOf: string | null }>;
  parentsOf(id: string): Promise<readonly string[]>;
}

/**
 * Folds the log, event by event in log order, into entries. Keeps per stream its folded fields, the containment
 * links between entities, and the owner of each API key (from `ApiKeyIssued`), so it can be fed the whole log once.
 */
export class AuditFold {
  private readonly states = new Map<string, Record<string, unknown>>();
  private readonly parents = new Map<string, Set<string>>();
  private readonly keyOwners = new Map<string, KeyOwner>();
  private readonly firstEvents = new Map<string, EventEnvelope>();
  /** Each Space's members and roles, and its personal owner, as folded so far (what `audit.read` reads). */
  private readonly spaceMembers = new Map<string, Readonly<Record<string, string>>>();
  private readonly personalOwners = new Map<string, string>();

  constructor(private readonly options: AuditFoldOptions = {}) {}

  /** Folds one event and answers its entry (values not yet redacted: see `redact`). */
  apply(event: EventEnvelope): AuditEntry {
    const subject = auditSubjectOf(event, this.options);
    const { resource } = subject;
    if (!this.firstEvents.has(resource.id)) {
      this.firstEvents.set(resource.id, event);
      this.link(resource.id, streamIdParents(resource.id));
    }
    this.link(resource.id, subject.parentIds);
    const spaceId = spaceIdOf(event);
    if (spaceId) {
      const personalOf = personalOwnerOf(event);
      if (personalOf) this.personalOwners.set(spaceId, personalOf);
      const members = this.spaceMembers.get(spaceId) ?? {};
      const next = membersAfter(event, members);
      if (next !== members) this.spaceMembers.set(spaceId, next);
    }
    const issued = keyIssued(event);
    if (issued) this.keyOwners.set(issued.apiKeyId, issued.owner);
    const before = this.states.get(subject.stateKey) ?? {};
    const keyOwner =
      event.metadata.actor.kind === 'apiKey' ? this.keyOwners.get(event.metadata.actor.id) : undefined;
    const { entry, after } = auditEntryOf(event, subject, before, keyOwner, this.options);
    this.states.set(subject.stateKey, after);
    return entry;
  }

  private link(id: string, parents: readonly string[]): void {
    if (parents.length === 0) return;
    let set = this.parents.get(id);
    if (!set) this.parents.set(id, (set = new Set()));
    for (const parent of parents) set.add(parent);
  }

  /** Whether the entity `id` is `ancestor` or lives (transitively) inside it. */
  isWithin(id: string, ancestor: string): boolean {
    const seen = new Set<string>();
    const stack = [id];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === ancestor) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      for (const parent of this.parents.get(next) ?? []) stack.push(parent);
    }
    return false;
  }

  /** Whether an entry is about `resourceId` or something inside it (its stream, or an id its event's data names). */
  entryWithin(entry: AuditEntry, resourceId: string): boolean {
    return entry.resource.itemId === resourceId || this.isWithin(entry.resource.id, resourceId);
  }

  /** A Space's members by user id and its personal owner, as folded (empty before members existed). */
  membershipOf(spaceId: string): { members: Readonly<Record<string, string>>; personalOf: string | null } {
    return {
      members: this.spaceMembers.get(spaceId) ?? {},
      personalOf: this.personalOwners.get(spaceId) ?? null,
    };
  }

  /** The first event of an entity's stream (its creation), if any was folded. */
  firstEventOf(id: string): EventEnvelope | undefined {
    return this.firstEvents.get(id);
  }

  /** The entities `id` lives inside, directly. */
  parentsOf(id: string): readonly string[] {
    return [...(this.parents.get(id) ?? [])];
  }

  /** The fold as an AuditGraph (what `mayAuditResource` reads). */
  graph(): AuditGraph {
    return {
      firstEventOf: (id) => {
        const first = this.firstEventOf(id);
        return Promise.resolve(first ? { type: first.type, actor: first.metadata.actor } : undefined);
      },
      membershipOf: (spaceId) => Promise.resolve(this.membershipOf(spaceId)),
      parentsOf: (id) => Promise.resolve(this.parentsOf(id)),
    };
  }
}
