// Applies pending write ops to a committed document in memory, so a projector reading its own state inside a batch
// sees the writes of the batch's earlier events exactly as the store will after commit.
import type { Filter, PositionedOp, StoredDocument, WriteOp } from '#read-store';

export function applyOpsInMemory(
  committed: StoredDocument | null,
  collection: string,
  id: string,
  pending: readonly PositionedOp[],
): StoredDocument | null {
  let doc: Record<string, unknown> | null = committed ? { ...committed } : null;
  for (const { op } of pending) {
    if (op.collection !== collection) continue;
    switch (op.kind) {
      case 'upsert':
        if (op.doc.id === id) doc = { ...op.doc };
        break;
      case 'patch':
        if (op.id === id && doc) doc = { ...doc, ...op.set };
        break;
      case 'increment':
        if (op.id !== id) break;
        doc ??= { ...op.onCreate, id };
        for (const [field, by] of Object.entries(op.by))
          doc[field] = ((doc[field] as number | undefined) ?? 0) + by;
        break;
      case 'delete':
        if (op.id === id) doc = null;
        break;
    }
  }
  return doc as StoredDocument | null;
}

/** A run of increments merged into one op that compactOps made, and so may add into. */
interface Sum {
  position: number;
  readonly op: Extract<WriteOp, { kind: 'increment' }> & { readonly by: Record<string, number> };
}

/**
 * Folds a batch's writes to each document into as few ops as give the same result under the store's position
 * guard: an upsert absorbs the patches after it, consecutive patches merge, a delete supersedes what came before.
 * Each merged op keeps the position of the last op it absorbed. Increments are not merged into earlier patches or
 * deletes (a replayed, partly applied batch would count twice), so they close a document's run; consecutive
 * increments merge only with `mergeIncrements`, which is safe only where a batch commits all or nothing (no document
 * can then have seen part of the batch). Documents are independent, so ops of different documents keep their
 * relative order only as far as each document's own.
 */
export function compactOps(
  ops: readonly PositionedOp[],
  options: { readonly mergeIncrements?: boolean } = {},
): PositionedOp[] {
  return foldOps(
    ops,
    options,
    ({ op }) => `${op.collection}\u0000${op.kind === 'upsert' ? op.doc.id : op.id}`,
  );
}

/**
 * compactOps for the ops of one document (a projector's pending writes are held by document): the same folds, with
 * no key to build per op.
 */
export function compactDocumentOps(
  ops: readonly PositionedOp[],
  options: { readonly mergeIncrements?: boolean } = {},
): PositionedOp[] {
  return foldOps(ops, options, () => '');
}

/** The folds of compactOps, each document found by `keyOf`. */
function foldOps(
  ops: readonly PositionedOp[],
  options: { readonly mergeIncrements?: boolean },
  keyOf: (op: PositionedOp) => string,
): PositionedOp[] {
  const open = new Map<string, number>();
  const out: (PositionedOp | null)[] = [];
  // Increments merged here, whose `by` this function made: the next increment of the run adds into it in place
  // instead of copying it again (a projector's ops may share one `by` between documents, so theirs are never written).
  const sums = new Set<PositionedOp>();
  for (const current of ops) {
    const { op } = current;
    const key = keyOf(current);
    const index = open.get(key);
    const previous = index === undefined ? null : out[index]!;
    let merged: PositionedOp | null = null;
    if (previous && op.kind === 'upsert') merged = current;
    else if (previous && op.kind === 'delete') merged = current;
    else if (previous?.op.kind === 'upsert' && op.kind === 'patch')
      merged = { position: current.position, op: { ...previous.op, doc: { ...previous.op.doc, ...op.set } } };
    else if (previous?.op.kind === 'upsert' && op.kind === 'increment') {
      const doc: Record<string, unknown> & { id: string } = { ...previous.op.doc };
      for (const [field, by] of Object.entries(op.by))
        doc[field] = ((doc[field] as number | undefined) ?? 0) + by;
      merged = { position: current.position, op: { ...previous.op, doc } };
    } else if (options.mergeIncrements && previous?.op.kind === 'increment' && op.kind === 'increment') {
      const sum: Sum = sums.has(previous)
        ? (previous as Sum)
        : { position: 0, op: { ...previous.op, by: { ...previous.op.by } } };
      sum.position = current.position;
      for (const field in op.by) sum.op.by[field] = (sum.op.by[field] ?? 0) + op.by[field]!;
      sums.add(sum);
      merged = sum;
    } else if (previous?.op.kind === 'patch' && op.kind === 'patch')
      merged = { position: current.position, op: { ...previous.op, set: { ...previous.op.set, ...op.set } } };
    else if (previous?.op.kind === 'delete' && op.kind === 'patch') merged = previous;
    if (merged && index !== undefined) {
      out[index] = null;
      out.push(merged);
      open.set(key, out.length - 1);
      continue;
    }
    out.push(current);
    if (op.kind === 'increment' && !options.mergeIncrements) open.delete(key);
    else open.set(key, out.length - 1);
  }
  return out.filter((op): op is PositionedOp => op !== null);
}

type Comparable = string | number | boolean | null;

const equal = (value: unknown, expected: Comparable): boolean =>
  expected === null ? value === null || value === undefined : value === expected;

const ordered = (value: unknown, bound: string | number, test: (order: number) => boolean): boolean =>
  (typeof value === 'string' || typeof value === 'number') &&
  typeof value === typeof bound &&
  test(value < bound ? -1 : value > bound ? 1 : 0);

/** Whether a document satisfies a read-store filter, with the stores' semantics (null also matches a missing field). */
export function matchesFilter(doc: StoredDocument, filter: Filter): boolean {
  const fields = doc as unknown as Record<string, unknown>;
  for (const [field, condition] of Object.entries(filter)) {
    const value = fields[field];
    if (condition === null || typeof condition !== 'object') {
      if (!equal(value, condition)) return false;
      continue;
    }
    if (condition.$in && !condition.$in.some((candidate) => equal(value, candidate))) return false;
    if (condition.$ne !== undefined && equal(value, condition.$ne)) return false;
    if (condition.$gt !== undefined && !ordered(value, condition.$gt, (order) => order > 0)) return false;
    if (condition.$gte !== undefined && !ordered(value, condition.$gte, (order) => order >= 0)) return false;
    if (condition.$lt !== undefined && !ordered(value, condition.$lt, (order) => order < 0)) return false;
    if (condition.$lte !== undefined && !ordered(value, condition.$lte, (order) => order <= 0)) return false;
  }
  return true;
}
