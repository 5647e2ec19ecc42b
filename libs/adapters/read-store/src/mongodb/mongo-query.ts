// Pure translation of the read store port into MongoDB query, sort and write documents: filters, keyset cursors,
// position-guarded write models, checkpoint and lease updates. No I/O here, so every query shape is unit-tested
// without a server (mongo-query.spec.ts); mongo-read-store.ts only sends what these functions build.
// Over 300 lines on purpose: the translation of the whole read store port into MongoDB documents, kept pure
// and beside its unit tests.
import type { mongo } from 'mongoose';
import {
  checkOmitted,
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
  emptyProjectionRecord,
  physicalName,
  type CursorPosition,
  type FieldCondition,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Page,
  type PositionedOp,
  type ProjectionRecord,
  type ProjectionRef,
  type StoredDocument,
} from '../read-store.port.js';

export type MongoDocument = mongo.Document;
export type SortSpec = Record<string, 1 | -1>;

/** A projection document as stored: our id as _id plus the position of the last event applied to it. */
export interface StoredRecord extends MongoDocument {
  _id: string;
  _position?: number;
}

/** One write of a commit, addressed to a physical collection, as an ordered bulkWrite model. */
export interface PlannedWrite {
  readonly collection: string;
  readonly id: string;
  readonly position: number;
  readonly model: mongo.AnyBulkWriteOperation<StoredRecord>;
}

const NAME = /^[a-z][a-z0-9_]*$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Field names the adapter uses itself; a projection field with one of these names would be overwritten. */
const RESERVED = new Set(['_id', '_position']);

export function checkName(name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid collection name '${name}'`);
  return name;
}

/** A field name as stored: documents keep their id in _id. Same names as SQLite accepts, minus the reserved ones. */
export function fieldPath(name: string): string {
  if (name === 'id') return '_id';
  if (!FIELD.test(name) || RESERVED.has(name)) throw new Error(`invalid field name '${name}'`);
  return name;
}

/**
 * A top-level field of an upserted or created document. Like the SQLite adapter, stored documents may carry names
 * that filters cannot address; only the adapter's own names are refused.
 */
function storableField(name: string): string {
  if (RESERVED.has(name)) throw new Error(`field name '${name}' is reserved by the MongoDB read store`);
  return name;
}

/** A field a patch or increment may write: any queryable field except the id, which never changes. */
function writableField(name: string): string {
  if (name === 'id') throw new Error("a document's id cannot be patched or incremented");
  return fieldPath(name);
}

/** Top-level entries without undefined values, as JSON.stringify drops them in the SQLite adapter. */
function defined(values: Readonly<Record<string, unknown>>): [string, unknown][] {
  return Object.entries(values).filter(([, value]) => value !== undefined);
}

function and(parts: readonly MongoDocument[]): MongoDocument {
  const nonEmpty = parts.filter((part) => Object.keys(part).length > 0);
  if (nonEmpty.length === 0) return {};
  return nonEmpty.length === 1 ? (nonEmpty[0] as MongoDocument) : { $and: nonEmpty };
}

const OPERATORS = ['$in', '$ne', '$gt', '$gte', '$lt', '$lte'] as const;

/**
 * One field's condition. Mongo's own semantics already match the port: `{ f: null }` matches null and missing,
 * `{ $ne: v }` matches missing and null too, `{ $ne: null }` only present non-null values, `$in: []` nothing.
 * Only the port's operators are copied, so a condition object can never smuggle in another operator.
 */
function condition(value: FieldCondition): unknown {
  if (value === null || typeof value !== 'object') return value;
  const out: MongoDocument = {};
  for (const operator of OPERATORS) {
    const operand = value[operator];
    if (operand !== undefined) out[operator] = operand;
  }
  // An operator object without operators constrains nothing (as in SQLite), whereas `{ f: {} }` would match `{}`.
  return Object.keys(out).length > 0 ? out : undefined;
}

export function filterQuery(filter: Filter): MongoDocument {
  const query: MongoDocument = {};
  for (const [name, value] of Object.entries(filter)) {
    const path = fieldPath(name);
    const translated = condition(value);
    if (translated !== undefined) query[path] = translated;
  }
  return query;
}

export function sortSpec(path: string, descending: boolean): SortSpec {
  const direction = descending ? -1 : 1;
  return path === '_id' ? { _id: direction } : { [path]: direction, _id: direction };
}

type CursorValue = string | number | boolean | null;

const isCursorValue = (value: unknown): value is CursorValue =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * Documents strictly after the cursor in (sort value, id) order, as the SQLite keysetCondition: Mongo sorts null
 * and missing first ascending (last descending), and `{ f: null }` matches both.
 */
export function keysetQuery(path: string, descending: boolean, cursor: CursorPosition): MongoDocument {
  const after = descending ? '$lt' : '$gt';
  if (path === '_id') return { _id: { [after]: cursor.id } };
  // The value came from a client; a non-scalar could read as an operator object in `{ f: value }`.
  if (!isCursorValue(cursor.value)) throw new InvalidCursorError();
  const value = cursor.value;
  if (!descending) {
    return value === null
      ? { $or: [{ [path]: null, _id: { $gt: cursor.id } }, { [path]: { $ne: null } }] }
      : { $or: [{ [path]: { $gt: value } }, { [path]: value, _id: { $gt: cursor.id } }] };
  }
  return value === null
    ? { [path]: null, _id: { $lt: cursor.id } }
    : { $or: [{ [path]: { $lt: value } }, { [path]: null }, { [path]: value, _id: { $lt: cursor.id } }] };
}

export interface FindPlan {
  readonly query: MongoDocument;
  readonly sort: SortSpec;
  /** Stored path of the sort field, read from the last document to build the next cursor. */
  readonly sortPath: string;
  /** Page size; null reads to the end. The store fetches one more to know whether a next page exists. */
  readonly limit: number | null;
  /** The omitted fields as an exclusion projection, or null (whole documents). */
  readonly projection: Record<string, 0> | null;
}

export function findPlan(filter: Filter, options: FindOptions): FindPlan {
  const sortPath = fieldPath(options.sort?.field ?? 'id');
  const descending = options.sort?.direction === 'desc';
  const parts = [filterQuery(filter)];
  if (options.cursor) {
    const cursor = decodeCursor(options.cursor);
    if (!cursor) throw new InvalidCursorError();
    parts.push(keysetQuery(sortPath, descending, cursor));
  }
  // A negative limit means "no limit" as in SQLite (to the driver it would mean a single batch).
  const limit = options.limit === undefined || options.limit < 0 ? null : options.limit;
  const omit = checkOmitted(options);
  const projection =
    omit.length === 0 ? null : Object.fromEntries(omit.map((name) => [fieldPath(name), 0 as const]));
  return { query: and(parts), sort: sortSpec(sortPath, descending), sortPath, limit, projection };
}

/** A stored document as the port returns it: `{ id, ...fields }` exactly as written, without _id and _position. */
export function toDocument<T extends StoredDocument>(record: StoredRecord): T {
  const { _id: id, _position: _ignored, ...fields } = record;
  return { id, ...fields } as unknown as T;
}

/** Cuts the limit + 1 documents fetched into a page and the cursor of its last document. */
export function toPage<T extends StoredDocument>(records: readonly StoredRecord[], plan: FindPlan): Page<T> {
  const more = plan.limit !== null && records.length > plan.limit;
  const page = more ? records.slice(0, plan.limit ?? 0) : records;
  const last = page[page.length - 1];
  const value: unknown = last ? (last[plan.sortPath] ?? null) : null;
  return {
    data: page.map((record) => toDocument<T>(record)),
    nextCursor: more && last ? encodeCursor({ value, id: last._id }) : null,
  };
}

/**
 * The idempotency guard of every write: the document's position is below the op's, or it has none. An upsert whose
 * guard fails on an existing document tries to insert its _id and fails with a duplicate key, which the store
 * checks (isNewerThan) and skips.
 */
export const positionGuard = (id: string, position: number): MongoDocument => ({
  _id: id,
  _position: { $not: { $gte: position } },
});

/** The position-guarded write model of one op; null when the op writes nothing (a patch without fields). */
export function writeModel(
  op: PositionedOp['op'],
  position: number,
): mongo.AnyBulkWriteOperation<StoredRecord> | null {
  switch (op.kind) {
    case 'upsert': {
      const { id, ...fields } = op.doc;
      const replacement: MongoDocument = {};
      for (const [name, value] of defined(fields)) replacement[storableField(name)] = value;
      replacement._position = position;
      return { replaceOne: { filter: positionGuard(id, position), replacement, upsert: true } };
    }
    case 'patch': {
      const entries = defined(op.set);
      // As in SQLite: nothing to set leaves the document and its position untouched.
      if (entries.length === 0) return null;
      const $set: MongoDocument = {};
      for (const [name, value] of entries) $set[writableField(name)] = value; // null stays a stored null
      $set._position = position;
      return { updateOne: { filter: positionGuard(op.id, position), update: { $set } } };
    }
    case 'increment': {
      const $inc: Record<string, number> = {};
      for (const [name, by] of Object.entries(op.by)) $inc[writableField(name)] = by;
      // onCreate fields that are also incremented are left to $inc (both on one path is a conflict); the id comes
      // from the filter's _id on insert.
      const $setOnInsert: MongoDocument = {};
      for (const [name, value] of defined(op.onCreate ?? {})) {
        if (name !== 'id' && !(name in op.by)) $setOnInsert[storableField(name)] = value;
      }
      // Empty operator documents are rejected by older servers, so only non-empty ones are sent.
      const update: MongoDocument = { $set: { _position: position } };
      if (Object.keys($inc).length > 0) update.$inc = $inc;
      if (Object.keys($setOnInsert).length > 0) update.$setOnInsert = $setOnInsert;
      return { updateOne: { filter: positionGuard(op.id, position), update, upsert: true } };
    }
    case 'delete':
      return { deleteOne: { filter: positionGuard(op.id, position) } };
  }
}

const opId = (op: PositionedOp['op']): string => (op.kind === 'upsert' ? op.doc.id : op.id);

/** The writes of a commit in op order, addressed to the generation's physical collections. */
export function planCommit(ref: ProjectionRef, ops: readonly PositionedOp[]): PlannedWrite[] {
  const planned: PlannedWrite[] = [];
  for (const { position, op } of ops) {
    const model = writeModel(op, position);
    const collection = physicalName(checkName(op.collection), ref.generation);
    if (model) planned.push({ collection, id: opId(op), position, model });
  }
  return planned;
}

/** Consecutive writes to the same collection, one ordered bulkWrite each, so the ops keep their global order. */
export function runsByCollection(writes: readonly PlannedWrite[]): PlannedWrite[][] {
  const runs: PlannedWrite[][] = [];
  for (const write of writes) {
    const current = runs[runs.length - 1];
    if (current && current[0]?.collection === write.collection) current.push(write);
    else runs.push([write]);
  }
  return runs;
}

/** The query that finds the document when it has seen this position or a later one (the op is then a no-op). */
export const isNewerThan = (id: string, position: number): MongoDocument => ({
  _id: id,
  _position: { $gte: position },
});

const DUPLICATE_KEY = new Set([11000, 11001]);

/** The index of the op an ordered bulkWrite stopped at because of a duplicate key; null for any other failure. */
export function duplicateKeyIndex(error: unknown): number | null {
  if (typeof error !== 'object' || error === null || !('writeErrors' in error)) return null;
  const writeErrors: unknown = error.writeErrors;
  const first: unknown = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
  if (typeof first !== 'object' || first === null || !('code' in first) || !('index' in first)) return null;
  return DUPLICATE_KEY.has(Number(first.code)) && typeof first.index === 'number' ? first.index : null;
}

export function isDuplicateKey(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'code' in error && DUPLICATE_KEY.has(Number(error.code))
  );
}

/** Mongo index keys of an index spec; non-unique indexes end with _id so (field, id) sorts and keysets use them. */
export function indexKeys(index: IndexSpec): Record<string, 1> | null {
  const keys: Record<string, 1> = {};
  for (const name of index.fields) keys[fieldPath(name)] = 1;
  if (!index.unique && !('_id' in keys)) keys._id = 1;
  // An index on the id alone is _id's own index, which every collection has (and which refuses options).
  return Object.keys(keys).length === 1 && '_id' in keys ? null : keys;
}

export const checkpointId = (ref: ProjectionRef): string => `${ref.name}:${ref.generation}`;

/** Raises the checkpoint, never lowers it (a replayed batch may commit an older position). */
export const checkpointUpdate = (ref: ProjectionRef, checkpoint: number): MongoDocument => ({
  $max: { position: checkpoint },
  $setOnInsert: { name: ref.name, generation: ref.generation },
});

/**
 * An atomic merge into the registry record: given fields are $set, the others get their defaults only when the
 * record is created, as the SQLite adapter's read-merge-write in a transaction.
 */
export function projectionUpdate(
  record: Partial<ProjectionRecord> & { readonly name: string },
): MongoDocument {
  const { name, ...given } = record;
  const $set: MongoDocument = Object.fromEntries(defined(given));
  const { name: _name, ...defaults } = emptyProjectionRecord(name);
  const $setOnInsert: MongoDocument = Object.fromEntries(
    Object.entries(defaults).filter(([key]) => !(key in $set)),
  );
  const update: MongoDocument = {};
  if (Object.keys($set).length > 0) update.$set = $set;
  if (Object.keys($setOnInsert).length > 0) update.$setOnInsert = $setOnInsert;
  return update;
}

/** Adds collection names in order, keeping existing ones, creating the record when missing. */
export function registerCollectionsUpdate(name: string, collections: readonly string[]): MongoDocument {
  const { name: _name, collections: _collections, ...defaults } = emptyProjectionRecord(name);
  return { $addToSet: { collections: { $each: [...collections] } }, $setOnInsert: defaults };
}

export function toProjectionRecord(stored: MongoDocument): ProjectionRecord {
  const { _id: name, ...fields } = stored;
  return { ...emptyProjectionRecord(String(name)), ...fields } as ProjectionRecord;
}

/**
 * Takes the lease when it is ours, expired, or held by `replacing` (a dead holder); a held lease fails the upsert
 * with a duplicate key on _id.
 */
export function leaseAcquire(
  name: string,
  owner: string,
  now: number,
  ttlMs: number,
  replacing?: string,
): { filter: MongoDocument; update: MongoDocument } {
  return {
    filter: {
      _id: name,
      $or: [{ owner }, { expiresAt: { $lt: now } }, ...(replacing ? [{ owner: replacing }] : [])],
    },
    update: { $set: { owner, expiresAt: now + ttlMs } },
  };
}
