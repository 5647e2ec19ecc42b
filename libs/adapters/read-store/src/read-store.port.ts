// The read store port: document collections that projectors write and query handlers read. Collections belong to a
// projection and exist per generation, so a rebuild fills a new generation beside the live one (blue/green).
// Two adapters (SQLite embedded, MongoDB production) pass one contract suite (read-store.contract.ts).
import { ValidationError } from '#kernel';

export interface StoredDocument {
  readonly id: string;
}

export type FieldCondition =
  | string
  | number
  | boolean
  | null
  | {
      readonly $in?: readonly (string | number | boolean)[];
      readonly $ne?: string | number | boolean | null;
      readonly $gt?: string | number;
      readonly $gte?: string | number;
      readonly $lt?: string | number;
      readonly $lte?: string | number;
    };

/** Conditions on top-level fields, all of which must hold. Equality with null also matches a missing field. */
export type Filter = Readonly<Record<string, FieldCondition>>;

export interface FindOptions {
  /** A top-level field; ties are broken by id in the same direction. Default: id ascending. */
  readonly sort?: { readonly field: string; readonly direction?: 'asc' | 'desc' };
  readonly limit?: number;
  /** An opaque cursor from a previous page's nextCursor. */
  readonly cursor?: string | null;
  /**
   * Top-level fields left out of every document of the page (never `id` or the sort field): a listing that shows
   * none of a large field (an answer's provenance) does not read and parse it for every row.
   */
  readonly omit?: readonly string[];
}

/** The fields `omit` may name: not `id`, not the field the page is sorted by (its cursor is read from it). */
export function checkOmitted(options: FindOptions): readonly string[] {
  const omit = options.omit ?? [];
  for (const name of omit)
    if (name === 'id' || name === (options.sort?.field ?? 'id'))
      throw new Error(`find cannot omit '${name}': a page needs its id and sort field`);
  return omit;
}

export interface Page<T> {
  readonly data: T[];
  readonly nextCursor: string | null;
}

export interface IndexSpec {
  readonly fields: readonly string[];
  readonly unique?: boolean;
}

export interface CollectionSpec {
  readonly name: string;
  readonly indexes?: readonly IndexSpec[];
}

/** A write a projector asks for. Each carries the position of the event that caused it (see commit). */
export type WriteOp =
  | {
      readonly kind: 'upsert';
      readonly collection: string;
      readonly doc: StoredDocument & Record<string, unknown>;
    }
  | {
      readonly kind: 'patch';
      readonly collection: string;
      readonly id: string;
      readonly set: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: 'increment';
      readonly collection: string;
      readonly id: string;
      readonly by: Readonly<Record<string, number>>;
      /** Fields set when the increment creates the document. */
      readonly onCreate?: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'delete'; readonly collection: string; readonly id: string };

export interface PositionedOp {
  readonly position: number;
  readonly op: WriteOp;
}

export interface ProjectionRef {
  readonly name: string;
  readonly generation: number;
}

export interface ProjectionRecord {
  readonly name: string;
  /** Generation that readers use; null before the first generation has caught up. */
  readonly liveGeneration: number | null;
  /** Projector code version of the live generation. */
  readonly liveVersion: number | null;
  readonly buildingGeneration: number | null;
  readonly buildingVersion: number | null;
  readonly rebuildRequested: boolean;
  readonly collections: readonly string[];
}

export interface DocumentReader<T extends StoredDocument> {
  get(id: string): Promise<T | null>;
  find(filter?: Filter, options?: FindOptions): Promise<Page<T>>;
  count(filter?: Filter): Promise<number>;
}

export interface ReadStore {
  /**
   * True when `commit` applies a batch's ops and checkpoint all or nothing (SQLite). Then no document can hold a
   * position past the checkpoint, so a batch's increments to one document may be merged into one.
   */
  readonly atomicCommit: boolean;
  /** Reads a collection in the live generation of the projection that owns it (empty before any generation). */
  reader<T extends StoredDocument>(collection: string): DocumentReader<T>;
  /** Reads a collection in one given generation (rebuild checks, tests). */
  readerAt<T extends StoredDocument>(collection: string, ref: ProjectionRef): DocumentReader<T>;

  /** Declares a projection's collections and indexes for a generation, creating what is missing. */
  prepareGeneration(ref: ProjectionRef, collections: readonly CollectionSpec[]): Promise<void>;
  /** Drops the collections and checkpoint of a generation. */
  dropGeneration(ref: ProjectionRef, collections: readonly string[]): Promise<void>;

  /**
   * Applies the ops in order and stores the checkpoint, atomically where the engine allows it. A write is skipped
   * when the document has already seen an event at or after the op's position, so re-applying is a no-op.
   */
  commit(ref: ProjectionRef, ops: readonly PositionedOp[], checkpoint: number): Promise<void>;
  checkpoint(ref: ProjectionRef): Promise<number>;

  projection(name: string): Promise<ProjectionRecord | null>;
  projections(): Promise<ProjectionRecord[]>;
  /** Creates or updates the projection's registry record (fields not given keep their value). */
  saveProjection(record: Partial<ProjectionRecord> & { readonly name: string }): Promise<ProjectionRecord>;

  /**
   * Takes or renews a named lease for `owner`; false while another owner holds an unexpired one, unless that owner is
   * `replacing` (a holder the caller knows to be dead), which makes the take-over a compare-and-swap.
   */
  acquireLease(name: string, owner: string, ttlMs: number, replacing?: string): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
  leaseHolder(name: string): Promise<{ owner: string; expiresAt: number } | null>;

  close(): Promise<void>;
}

export const READ_STORE = Symbol('READ_STORE');

/** Cursor of keyset pagination: the last row's sort value and id. */
export interface CursorPosition {
  readonly value: unknown;
  readonly id: string;
}

export const encodeCursor = (position: CursorPosition): string =>
  Buffer.from(JSON.stringify([position.value, position.id])).toString('base64url');

export function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[1] === 'string')
      return { value: parsed[0] as unknown, id: parsed[1] };
  } catch {
    // fall through: an unreadable cursor is a client error, reported by the caller
  }
  return null;
}

export class InvalidCursorError extends ValidationError {
  constructor() {
    super('invalid_cursor', 'cursor is not a cursor this API returned', 'cursor');
  }
}

/** The registry record of a projection that has none stored yet. */
export const emptyProjectionRecord = (name: string): ProjectionRecord => ({
  name,
  liveGeneration: null,
  liveVersion: null,
  buildingGeneration: null,
  buildingVersion: null,
  rebuildRequested: false,
  collections: [],
});

export const physicalName = (collection: string, generation: number): string =>
  `${collection}__g${generation}`;

/** Every document of a filter, page by page. */
export async function findAll<T extends StoredDocument>(
  readStore: ReadStore,
  collection: string,
  filter: Filter,
): Promise<T[]> {
  const reader = readStore.reader<T>(collection);
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const page = await reader.find(filter, { limit: 1000, cursor });
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}
