// What a projector is: a named, versioned, idempotent function from an event to read-model writes. Process managers
// are projectors too: they keep their own state in collections and may send idempotent commands while projecting.
import type { EventEnvelope } from '../../kernel/src/index.js';
import type { CollectionSpec, StoredDocument, WriteOp } from '../../read-store/src/read-store.port.js';

export interface ProjectionContext {
  /** A document of this projector's own collections, as committed plus the writes pending in this batch. */
  get<T extends StoredDocument>(collection: string, id: string): Promise<T | null>;
}

export interface Projector {
  /** Keys the checkpoint and the registry record: never rename. */
  readonly name: string;
  /** Bump when the projection logic changes: a new generation is built beside the live one and switched to. */
  readonly version: number;
  readonly collections: readonly CollectionSpec[];
  /** Event types this projector reads; a batch without any is skipped (its position is stored lazily). */
  readonly eventTypes: readonly string[];
  project(event: EventEnvelope, context: ProjectionContext): Promise<readonly WriteOp[]> | readonly WriteOp[];
}

export const PROJECTORS = Symbol('PROJECTORS');
