// A page of a conversation's messages as the messages route lists them, whichever store holds them: the branch the
// conversation continues (or every message), and each message's alternatives.
import { decodeCursor, encodeCursor, InvalidCursorError } from '#read-store';
import { branchTo, siblingsOf, type TreeNode } from './conversation-tree.js';

/** Which messages a listing shows: the branch the conversation continues, or every message. */
export type Branches = 'current' | 'all';

/**
 * A page of a conversation's listing, however it is held: the branch ending at its head (or every message), paged
 * by position. A cursor names the last message listed, so a page after a branch switch starts after that message
 * where it is still listed (else at the same position); the read models' cursors (`[seq, id]`) are read the same way.
 */
export function branchListing<Node extends TreeNode & { readonly role: string }>(
  nodes: readonly Node[],
  conversation: { readonly headId: string | null; readonly branched: boolean },
  branches: Branches,
  page: { readonly limit: number; readonly cursor: string | null },
): {
  readonly data: Node[];
  readonly nextCursor: string | null;
  readonly siblings: ReturnType<typeof siblingsOf>;
} {
  const listed =
    conversation.branched && branches === 'current' ? branchTo(nodes, conversation.headId) : nodes;
  let from = 0;
  if (page.cursor) {
    const position = decodeCursor(page.cursor);
    const at = position ? listed.findIndex((node) => node.id === position.id) : -1;
    from = at >= 0 ? at + 1 : Number(position?.value);
    if (!Number.isInteger(from) || from < 0) throw new InvalidCursorError();
  }
  const data = listed.slice(from, from + page.limit);
  const next = from + data.length;
  return {
    data,
    nextCursor: next < listed.length ? encodeCursor({ value: next, id: data.at(-1)!.id }) : null,
    siblings: conversation.branched ? siblingsOf(nodes) : new Map(),
  };
}
