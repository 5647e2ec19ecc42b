// The kit for process managers. A process manager is a projector (see projector.ts) that keeps its own state in
// collections and sends idempotent commands while projecting; the runner checkpoints it like any projector, so a
// crash replays from the checkpoint and the commands, whose event ids derive from their cause, append nothing twice.
//  - `defineProcess`: the base class of a process manager (its name, which keys the checkpoint and never changes; its
//    version, bumped when its state's shape changes so it rebuilds from the log; its collections; a handler per event
//    it reads). Its subclass is the Nest provider: its constructor takes what the handlers send to.
//  - `ownerCascade`: "deleting an owner deletes its children, and any child created after it": one document per
//    (owner, child), so an owner with a million children costs the same per write as an empty one, and the deletion
//    pages through them.
//  - `childIndex`: the owner → children index they keep (one document per pair, read page by page).
//  - `erasureHandlers`: a table of event → data keys to destroy.
import type { DomainEvent, EventEnvelope } from '#kernel';
import type { CollectionSpec, Page, WriteOp } from '#read-store';
import {
  eventHandlers,
  type EnvelopeOf,
  type EventHandlers,
  type ProjectionContext,
  type Projector,
} from './projector.js';

export interface ProcessSpec {
  /** Keys the checkpoint and the registry record: never rename. */
  readonly name: string;
  /** Bump when the state's shape or the logic changes: the process rebuilds from the log beside the live one. */
  readonly version: number;
  /** Its state; none for a process that only acts (erasure). */
  readonly collections?: readonly CollectionSpec[];
}

const dispatchers = new WeakMap<object, Pick<Projector, 'eventTypes' | 'project'>>();

/**
 * The base class of a process manager reading the events of the union E:
 *
 *     @Injectable()
 *     export class XProcess extends defineProcess<Read>({ name: 'x-process', version: 1 }) {
 *       constructor(private readonly bus: CommandBus) { super(); }
 *       readonly on: EventHandlers<Read> = { SomethingHappened: (event, context) => … };
 *     }
 */
export function defineProcess<E extends DomainEvent>(spec: ProcessSpec) {
  abstract class DefinedProcess implements Projector {
    readonly name = spec.name;
    readonly version = spec.version;
    readonly collections: readonly CollectionSpec[] = spec.collections ?? [];
    /** A handler per event type of the union (null: not read). */
    abstract readonly on: EventHandlers<E>;

    get eventTypes(): readonly string[] {
      return this.dispatch().eventTypes;
    }

    project(event: EventEnvelope, context: ProjectionContext) {
      return this.dispatch().project(event, context);
    }

    private dispatch() {
      let dispatcher = dispatchers.get(this);
      if (!dispatcher) {
        dispatcher = eventHandlers<E>(this.on);
        dispatchers.set(this, dispatcher);
      }
      return dispatcher;
    }
  }
  return DefinedProcess;
}

/** What an event means to a cascade. */
export type CascadeStep =
  /** The child belongs to the owner (`as`: its kind, when an owner has children of several kinds). */
  | { readonly add: string; readonly to: string; readonly as?: string }
  /** The child left the owner `from`, or every owner it had. */
  | { readonly remove: string; readonly from?: string }
  /** The owner is deleted: its children are deleted, and so is every child added to it later. */
  | { readonly ownerGone: string };

export type CascadeSteps = CascadeStep | readonly CascadeStep[] | null;

/** A child to delete: its id, its kind (`as` of its step, or null) and the owner it was deleted for. */
export interface CascadeChild {
  readonly id: string;
  readonly kind: string | null;
  readonly ownerId: string;
}

/** One document per (owner, child): `${ownerId}:${childId}`. */
export interface CascadeMember {
  readonly id: string;
  readonly ownerId: string;
  readonly childId: string;
  readonly kind: string | null;
}

export interface OwnerCascadeSpec<E extends DomainEvent> {
  /** The prefix of its collections: `${state}_children` (one document per child) and `${state}_gone` (owners). */
  readonly state: string;
  /** Per event type of the union: the steps it means (null: not read). */
  readonly on: { readonly [T in E['type']]: ((event: EnvelopeOf<E, T>) => CascadeSteps) | null };
  /** Children read per page when an owner goes (default 500). */
  readonly pageSize?: number;
}

export interface OwnerCascade<E extends DomainEvent> {
  readonly collections: readonly CollectionSpec[];
  /**
   * The handlers, given what deletes one child (an idempotent command: called again for the same cause after a
   * crash or a rebuild, it must append nothing).
   */
  handlers(deleteChild: (child: CascadeChild, cause: EventEnvelope) => Promise<void>): EventHandlers<E>;
}

/**
 * An index owner → children as one document per (owner, child), `${ownerId}:${childId}`, read page by page: what a
 * process manager keeps instead of a list of ids in one document. `ownerCascade` is built on it; a process that acts
 * on an owner's children otherwise (rebuild them, say) uses it directly.
 */
export interface ChildIndex {
  readonly collection: CollectionSpec;
  /** Files the child under the owner (nothing to write when it is there already). */
  add(context: ProjectionContext, ownerId: string, childId: string, kind?: string | null): Promise<WriteOp[]>;
  /** Takes the child out of the owner `ownerId`, or of every owner it has. */
  remove(context: ProjectionContext, childId: string, ownerId?: string): Promise<WriteOp[]>;
  /** Visits the members a filter selects (`{ ownerId }`, `{ childId }`, `{}` for all), a page at a time. */
  each(
    context: ProjectionContext,
    filter: { readonly ownerId?: string; readonly childId?: string },
    visit: (member: CascadeMember) => Promise<void>,
  ): Promise<void>;
}

export function childIndex(name: string, pageSize = 500): ChildIndex {
  const each: ChildIndex['each'] = async (context, filter, visit) => {
    let cursor: string | null = null;
    do {
      const page: Page<CascadeMember> = await context.find<CascadeMember>(name, filter, {
        limit: pageSize,
        cursor,
      });
      for (const member of page.data) await visit(member);
      cursor = page.nextCursor;
    } while (cursor);
  };
  return {
    collection: { name, indexes: [{ fields: ['ownerId', 'id'] }, { fields: ['childId', 'id'] }] },
    async add(context, ownerId, childId, kind = null) {
      const id = `${ownerId}:${childId}`;
      if (await context.get(name, id)) return [];
      const doc: CascadeMember = { id, ownerId, childId, kind };
      return [{ kind: 'upsert', collection: name, doc: { ...doc } }];
    },
    async remove(context, childId, ownerId) {
      if (ownerId !== undefined) {
        const id = `${ownerId}:${childId}`;
        return (await context.get(name, id)) ? [{ kind: 'delete', collection: name, id }] : [];
      }
      const ops: WriteOp[] = [];
      await each(context, { childId }, async (member) => {
        ops.push({ kind: 'delete', collection: name, id: member.id });
      });
      return ops;
    },
    each,
  };
}

/** Owner → children, deleting the children when the owner goes, and any child added after that. */
export function ownerCascade<E extends DomainEvent>(spec: OwnerCascadeSpec<E>): OwnerCascade<E> {
  const children = childIndex(`${spec.state}_children`, spec.pageSize);
  const gone = `${spec.state}_gone`;

  const apply = async (
    step: CascadeStep,
    event: EventEnvelope,
    context: ProjectionContext,
    deleteChild: (child: CascadeChild, cause: EventEnvelope) => Promise<void>,
  ): Promise<WriteOp[]> => {
    if ('add' in step) {
      if (await context.get(gone, step.to)) {
        await deleteChild({ id: step.add, kind: step.as ?? null, ownerId: step.to }, event);
        return [];
      }
      return children.add(context, step.to, step.add, step.as);
    }
    if ('remove' in step) return children.remove(context, step.remove, step.from);
    const ownerId = step.ownerGone;
    const ops: WriteOp[] = [{ kind: 'upsert', collection: gone, doc: { id: ownerId } }];
    await children.each(context, { ownerId }, async (member) => {
      await deleteChild({ id: member.childId, kind: member.kind, ownerId }, event);
      ops.push({ kind: 'delete', collection: children.collection.name, id: member.id });
    });
    return ops;
  };

  return {
    collections: [children.collection, { name: gone }],
    handlers(deleteChild) {
      const handlers: Record<
        string,
        ((event: EventEnvelope, context: ProjectionContext) => Promise<WriteOp[]>) | null
      > = {};
      const table = spec.on as Record<string, ((event: EventEnvelope) => CascadeSteps) | null>;
      for (const [type, meaning] of Object.entries(table))
        handlers[type] = meaning
          ? async (event, context) => {
              const steps = meaning(event);
              const ops: WriteOp[] = [];
              for (const step of steps === null ? [] : Array.isArray(steps) ? steps : [steps])
                ops.push(...(await apply(step as CascadeStep, event, context, deleteChild)));
              return ops;
            }
          : null;
      return handlers as unknown as EventHandlers<E>;
    },
  };
}

/** The data keys an event says are erased: single keys, and groups of keys (a whole conversation, a bucket). */
export interface ErasedKeys {
  readonly keys?: readonly string[];
  readonly groups?: readonly string[];
}

/** What destroys data keys (the key store, seen from here). Destroying a key that is gone is a no-op. */
export interface KeyDestroyer {
  destroy(keyId: string): Promise<unknown>;
  destroyGroup(group: string): Promise<unknown>;
}

/** The handlers of an erasure process: per event type, the keys it erases (null: not read). Writes nothing. */
export function erasureHandlers<E extends DomainEvent>(
  table: { readonly [T in E['type']]: ((event: EnvelopeOf<E, T>) => ErasedKeys) | null },
  keys: () => KeyDestroyer,
): EventHandlers<E> {
  const handlers: Record<string, ((event: EventEnvelope) => Promise<WriteOp[]>) | null> = {};
  for (const [type, erased] of Object.entries(
    table as Record<string, ((event: EventEnvelope) => ErasedKeys) | null>,
  ))
    handlers[type] = erased
      ? async (event) => {
          const { keys: ids = [], groups = [] } = erased(event);
          for (const id of ids) await keys().destroy(id);
          for (const group of groups) await keys().destroyGroup(group);
          return [];
        }
      : null;
  return handlers as unknown as EventHandlers<E>;
}
