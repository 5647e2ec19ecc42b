// The writes a projector made and the store has not committed yet: one batch's, or, while a generation catches up,
// several batches' committed together. A projector reading its own state meanwhile (`get`, `find`) sees them applied,
// found by document rather than by scanning them all, however many batches they span.
import type {
  Filter,
  FindOptions,
  Page,
  PositionedOp,
  ProjectionRef,
  ReadStore,
  StoredDocument,
} from '#read-store';
import { applyOpsInMemory, compactDocumentOps, matchesFilter } from './in-memory-ops.js';

const NONE: readonly PositionedOp[] = [];
const NO_DOCUMENTS: ReadonlyMap<string, unknown> = new Map();
/**
 * A document's pending ops are folded (compactOps) once this many are held, and again each time what is held has
 * doubled since (ops that do not fold, such as increments a store that commits piecemeal cannot merge, then cost no
 * more than a constant per op): memory follows documents, not events.
 */
const FOLD_AT = 8;

interface DocumentWrites {
  ops: PositionedOp[];
  foldAt: number;
}

export class PendingWrites {
  /** collection → document id → its ops, in order (folded as they grow). */
  private readonly byDocument = new Map<string, Map<string, DocumentWrites>>();
  private count = 0;

  /** `mergeIncrements`: as compactOps (only where the store commits all of them or nothing). */
  constructor(private readonly options: { readonly mergeIncrements?: boolean } = {}) {}

  /** How many documents have pending writes. */
  get documents(): number {
    return this.count;
  }

  add(written: PositionedOp): void {
    const { op } = written;
    let documents = this.byDocument.get(op.collection);
    if (!documents) this.byDocument.set(op.collection, (documents = new Map()));
    const id = op.kind === 'upsert' ? op.doc.id : op.id;
    const held = documents.get(id);
    if (!held) {
      documents.set(id, { ops: [written], foldAt: FOLD_AT });
      this.count += 1;
      return;
    }
    held.ops.push(written);
    if (held.ops.length < held.foldAt) return;
    held.ops = compactDocumentOps(held.ops, this.options);
    held.foldAt = Math.max(FOLD_AT, 2 * held.ops.length);
  }

  /** A document as committed (`committed`) with the pending writes applied. */
  applied(committed: StoredDocument | null, collection: string, id: string): StoredDocument | null {
    return applyOpsInMemory(committed, collection, id, this.byDocument.get(collection)?.get(id)?.ops ?? NONE);
  }

  /** The ids of the documents of a collection with pending writes. */
  touched(collection: string): ReadonlyMap<string, unknown> {
    return this.byDocument.get(collection) ?? NO_DOCUMENTS;
  }

  /** The ops to commit, folded per document (see compactOps); documents are independent, so grouped by document. */
  compacted(): PositionedOp[] {
    const out: PositionedOp[] = [];
    for (const documents of this.byDocument.values())
      for (const { ops } of documents.values())
        if (ops.length === 1) out.push(ops[0]!);
        else for (const op of compactDocumentOps(ops, this.options)) out.push(op);
    return out;
  }
}

/**
 * One page of a projector's collection with the pending writes applied: committed documents they changed or deleted
 * are shown changed (or left out), and on the last page come those only the pending writes created.
 */
export async function findPendingPage<T extends StoredDocument>(
  readStore: ReadStore,
  ref: ProjectionRef,
  collection: string,
  filter: Filter,
  options: FindOptions,
  pending: PendingWrites,
): Promise<Page<T>> {
  const reader = readStore.readerAt<T>(collection, ref);
  const page = await reader.find(filter, options);
  const touched = pending.touched(collection);
  if (touched.size === 0) return page;
  const data: T[] = [];
  // A document with pending writes is shown whole (its pending state): the page's omitted fields are left out again.
  const shown = (doc: StoredDocument): T => {
    if (!options.omit?.length) return doc as T;
    const copy: Record<string, unknown> = { ...doc };
    for (const name of options.omit) delete copy[name];
    return copy as T;
  };
  for (const doc of page.data) {
    if (!touched.has(doc.id)) {
      data.push(doc);
      continue;
    }
    // The page's copy lacks the omitted fields, which the filter may test: the whole document is read then.
    const base = options.omit?.length ? await reader.get(doc.id) : doc;
    const current = pending.applied(base, collection, doc.id);
    if (current && matchesFilter(current, filter)) data.push(shown(current));
  }
  if (page.nextCursor === null)
    for (const id of touched.keys()) {
      const committed = await reader.get(id);
      // A committed document that matched was listed on its page already.
      if (committed && matchesFilter(committed, filter)) continue;
      const current = pending.applied(committed, collection, id);
      if (current && matchesFilter(current, filter)) data.push(shown(current));
    }
  return { data, nextCursor: page.nextCursor };
}
