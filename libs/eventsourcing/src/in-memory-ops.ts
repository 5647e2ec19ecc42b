// Applies pending write ops to a committed document in memory, so a projector reading its own state inside a batch
// sees the writes of the batch's earlier events exactly as the store will after commit.
import type { PositionedOp, StoredDocument } from '../../read-store/src/read-store.port.js';

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
