// Reads the audit trail's read model (audit-read-model.ts): a page of entries by log position through the indexes,
// and the containment, creations and memberships the access check reads (an AuditGraph). A filter that is an "or"
// (everything inside an entity: its descendants' entries or the entries about it as an item; an actor: the actor or
// the person behind a key) is read as one indexed query per alternative, merged in log order.
import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import { actionOf } from './audit-actions.js';
import type { AuditEntry, AuditGraph } from './audit-fold.js';
import {
  AUDIT_ENTRIES,
  AUDIT_EVENT_TYPES,
  AUDIT_LINKS,
  AUDIT_RESOURCES,
  auditEntryId,
  type AuditEntryView,
  type AuditEventTypeView,
  type AuditLinkView,
  type AuditResourceView,
} from './audit-read-model.js';
import type { AuditFilters } from './audit-trail.js';

/** Ids per `$in` condition (the engines bind each as a parameter). */
const IN_CHUNK = 500;
const PAGE = 1000;

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
};

/** Every combination of one filter from each list (an "and" of "or"s as an "or" of "and"s). */
const combinations = (lists: readonly (readonly Filter[])[]): Filter[] =>
  lists.reduce<Filter[]>(
    (acc, list) => acc.flatMap((filter) => list.map((next) => ({ ...filter, ...next }))),
    [{}],
  );

@Injectable()
export class AuditEntriesReader {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /**
   * Up to `limit` entries the filters select, in the page order, after `cursor` (a log position), and whether more
   * follow. Not redacted (AuditTrail.redact).
   */
  async page(filters: AuditFilters): Promise<{ entries: AuditEntry[]; more: boolean }> {
    const newest = (filters.order ?? 'newest') === 'newest';
    const limit = filters.limit ?? 50;
    const base: Record<string, Filter[string]> = {};
    if (filters.resourceType) base.resourceType = filters.resourceType;
    if (filters.correlationId) base.correlationId = filters.correlationId;
    if (filters.from || filters.to) {
      const range: { $gte?: number; $lte?: number } = {};
      if (filters.from) range.$gte = Date.parse(filters.from);
      if (filters.to) range.$lte = Date.parse(filters.to);
      base.at = range;
    }
    if (filters.cursor !== undefined)
      base.id = newest ? { $lt: auditEntryId(filters.cursor) } : { $gt: auditEntryId(filters.cursor) };
    if (filters.action) {
      const types = await this.eventTypesMatching(filters.action);
      if (types.length === 0) return { entries: [], more: false };
      base.eventType = { $in: types };
    }
    const alternatives: Filter[][] = [[base]];
    if (filters.actorId) alternatives.push([{ actorId: filters.actorId }, { actorUserId: filters.actorId }]);
    if (filters.resourceId) {
      const within = await this.descendantsOf(filters.resourceId);
      alternatives.push([
        { itemId: filters.resourceId },
        ...chunks([...within], IN_CHUNK).map((ids) => ({ resourceId: { $in: ids } })),
      ]);
    }
    const reader = this.readStore.reader<AuditEntryView>(AUDIT_ENTRIES);
    const pages = await Promise.all(
      combinations(alternatives).map((filter) =>
        reader.find(filter, { sort: { field: 'id', direction: newest ? 'desc' : 'asc' }, limit: limit + 1 }),
      ),
    );
    // Each alternative's first limit + 1 hold the union's first limit + 1.
    const merged = new Map<string, AuditEntryView>();
    for (const page of pages) for (const view of page.data) merged.set(view.id, view);
    const ordered = [...merged.values()].sort((a, b) =>
      newest ? b.position - a.position : a.position - b.position,
    );
    return { entries: ordered.slice(0, limit).map((view) => view.entry), more: ordered.length > limit };
  }

  /** The event types seen whose action words hold `action`, or which are `action` (case-insensitive). */
  private async eventTypesMatching(action: string): Promise<string[]> {
    const wanted = action.toLowerCase();
    const types: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.readStore
        .reader<AuditEventTypeView>(AUDIT_EVENT_TYPES)
        .find({}, { limit: PAGE, cursor });
      for (const { id } of page.data)
        if (actionOf(id).toLowerCase().includes(wanted) || id.toLowerCase() === wanted) types.push(id);
      cursor = page.nextCursor;
    } while (cursor);
    return types;
  }

  /** `id` and every entity that lives (transitively) inside it. */
  async descendantsOf(id: string): Promise<Set<string>> {
    const links = this.readStore.reader<AuditLinkView>(AUDIT_LINKS);
    const seen = new Set([id]);
    let frontier = [id];
    while (frontier.length > 0) {
      const next: string[] = [];
      for (const ids of chunks(frontier, IN_CHUNK)) {
        let cursor: string | null = null;
        do {
          const page = await links.find({ parent: { $in: ids } }, { limit: PAGE, cursor });
          for (const { child } of page.data)
            if (!seen.has(child)) {
              seen.add(child);
              next.push(child);
            }
          cursor = page.nextCursor;
        } while (cursor);
      }
      frontier = next;
    }
    return seen;
  }

  /** The read model as an AuditGraph (what `mayAuditResource` reads). */
  graph(): AuditGraph {
    const resources = this.readStore.reader<AuditResourceView>(AUDIT_RESOURCES);
    const links = this.readStore.reader<AuditLinkView>(AUDIT_LINKS);
    return {
      firstEventOf: async (id) => (await resources.get(id))?.first ?? undefined,
      membershipOf: async (spaceId) => {
        const view = await resources.get(spaceId);
        return { members: view?.members ?? {}, personalOf: view?.personalOf ?? null };
      },
      parentsOf: async (id) => {
        const parents: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await links.find({ child: id }, { limit: PAGE, cursor });
          parents.push(...page.data.map((link) => link.parent));
          cursor = page.nextCursor;
        } while (cursor);
        return parents;
      },
    };
  }
}
