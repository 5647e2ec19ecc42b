// The audit trail over the event store: the one reader of the log outside the write side and the projectors (see
// ARCHITECTURE.md). It folds the whole log in order (AuditFold), keeps the entries the filters select, pages them by
// log position and redacts them (secrets dropped, sealed content "sealed", or "erased" once its key is destroyed).
// Reading the whole log per request is linear in its size: fine on the embedded stack; a read model would be the
// next step if a measured need shows.
import { Inject, Injectable } from '@nestjs/common';
import type { EventEnvelope } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { KEY_STORE, type KeyStore } from '#key-store';
import { agentChanges, type AgentEvent } from '#agents';
import { AuditFold, redact, sealedKeyIds, type AuditEntry, type FieldChanges } from './audit-fold.js';

export interface AuditFilters {
  /** Entries about this entity or anything inside it (a Space's Agents and documents, an Agent's conversations). */
  readonly resourceId?: string;
  /** Only entries whose own resource has this type (`agent`, `space`, `document`, …). */
  readonly resourceType?: string;
  /** The actor's id, or the user behind an API key. */
  readonly actorId?: string;
  /** A word or the event type: matched case-insensitively against both. */
  readonly action?: string;
  readonly correlationId?: string;
  /** ISO times, inclusive. */
  readonly from?: string;
  readonly to?: string;
  readonly order?: 'newest' | 'oldest';
  /** A log position: the page starts after it (in the page order). */
  readonly cursor?: number;
  readonly limit?: number;
}

export interface AuditPage {
  readonly data: AuditEntry[];
  readonly nextCursor: string | null;
}

const agentFields: FieldChanges = (event) => {
  const { agentId: _agentId, ...fields } = agentChanges(event as unknown as AgentEvent) as Record<
    string,
    unknown
  >;
  return fields;
};

/** How the stream types whose events are not plain field sets are read. */
export const AUDIT_FIELD_READINGS: Readonly<Record<string, FieldChanges>> = { agent: agentFields };

/** Streams of many items, folded per item (see AuditFoldOptions). */
export const AUDIT_ITEM_FIELDS: Readonly<Record<string, string>> = {
  'memory-bucket': 'memoryId',
  conversation: 'messageId',
  usage: 'callId',
};

const READ_BATCH = 1000;

/**
 * Events that are not changes and stay out of the audit trail (the route, `cli audit` and the export alike): model
 * calls' usage records (a batch of calls per event, one call per event in older logs: the gateway's hottest write) are
 * usage, read at `GET /usage` and `/cost-control`. Projecting each into the audit trail cost the saturated gateway
 * ≈70 µs of api CPU per request and 15% of its throughput (bench, same run: 262 → 194 µs, 0.66 → 0.79 of a direct
 * call). A stored Responses answer is the same traffic (a model call the gateway keeps for its person, counted in
 * usage): only its erasure, `ResponseDeleted` (by its person or on expiry), is an entry.
 */
export const AUDIT_SKIPPED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'ModelCallRecorded',
  'ModelCallsRecorded',
  'ResponseStored',
]);

@Injectable()
export class AuditTrail {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(KEY_STORE) private readonly keyStore: KeyStore,
  ) {}

  /** Folds the whole log; `visit` sees each entry in log order with the fold as it stands. */
  async fold(visit: (entry: AuditEntry, fold: AuditFold, event: EventEnvelope) => void): Promise<AuditFold> {
    const fold = new AuditFold({
      changesByStreamType: AUDIT_FIELD_READINGS,
      itemFieldByStreamType: AUDIT_ITEM_FIELDS,
    });
    let after: number | undefined;
    for (;;) {
      const batch = await this.eventStore.readAll({ after, maxCount: READ_BATCH });
      for (const event of batch)
        if (!AUDIT_SKIPPED_EVENT_TYPES.has(event.type)) visit(fold.apply(event), fold, event);
      if (batch.length < READ_BATCH) return fold;
      after = batch.at(-1)!.position;
    }
  }

  /** The entries the filters select (every one of them, in log order), not yet redacted. */
  async select(filters: AuditFilters): Promise<{ entries: AuditEntry[]; fold: AuditFold }> {
    const from = filters.from ? Date.parse(filters.from) : null;
    const to = filters.to ? Date.parse(filters.to) : null;
    const action = filters.action?.toLowerCase();
    const entries: AuditEntry[] = [];
    const fold = await this.fold((entry) => {
      if (filters.resourceType && entry.resource.type !== filters.resourceType) return;
      if (filters.correlationId && entry.correlationId !== filters.correlationId) return;
      if (filters.actorId && entry.actor.id !== filters.actorId && entry.actor.userId !== filters.actorId)
        return;
      if (action && !entry.action.toLowerCase().includes(action) && entry.eventType.toLowerCase() !== action)
        return;
      const at = Date.parse(entry.occurredAt);
      if ((from !== null && at < from) || (to !== null && at > to)) return;
      // Containment is checked once the whole log is folded: a stream may name its parent after its first event.
      entries.push(entry);
    });
    const kept = filters.resourceId
      ? entries.filter((entry) => fold.entryWithin(entry, filters.resourceId!))
      : entries;
    return { entries: kept, fold };
  }

  /** One page of entries, redacted (of `selected`, when the caller has already selected them with these filters). */
  async page(filters: AuditFilters, selected?: readonly AuditEntry[]): Promise<AuditPage> {
    const entries = [...(selected ?? (await this.select(filters)).entries)];
    const newest = (filters.order ?? 'newest') === 'newest';
    const ordered = newest ? entries.reverse() : entries;
    const cursor = filters.cursor;
    const start =
      cursor === undefined
        ? ordered
        : ordered.filter((entry) => (newest ? entry.position < cursor : entry.position > cursor));
    const limit = filters.limit ?? 50;
    const data = start.slice(0, limit);
    return {
      data: await this.redact(data),
      nextCursor: start.length > limit ? String(data.at(-1)!.position) : null,
    };
  }

  /** Secrets dropped, sealed content shown as "sealed" or "erased" (its key destroyed). */
  async redact(entries: readonly AuditEntry[]): Promise<AuditEntry[]> {
    const keyIds = sealedKeyIds(entries.map((entry) => entry.changes));
    const live = keyIds.size > 0 ? await this.keyStore.getMany([...keyIds]) : new Map<string, Buffer>();
    const liveIds = new Set(live.keys());
    return entries.map((entry) => ({
      ...entry,
      changes: entry.changes
        .filter((change) => !isSecretField(change.field))
        .map((change) => ({
          field: change.field,
          before: redact(change.before, liveIds),
          after: redact(change.after, liveIds),
        })),
    }));
  }
}

const isSecretField = (field: string): boolean =>
  Object.keys(redact({ [field]: true }, new Set()) as object).length === 0;
