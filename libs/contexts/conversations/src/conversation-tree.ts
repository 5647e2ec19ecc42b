// A conversation's messages form a tree: each follows its parent, and a question edited or regenerated starts a
// branch beside the earlier one, which is kept. These functions read that tree the same way wherever it is held (the
// decider's state, the read model's documents, an incognito conversation in memory).

/** A message as the tree sees it. */
export interface TreeNode {
  readonly id: string;
  readonly parentId: string | null;
}

/**
 * The branch that ends at `leafId`, from its first message, in the order given (oldest first): the history a turn
 * continues and the messages a reader sees. A parent missing from `nodes` ends the walk (what precedes a window).
 */
export function branchTo<Node extends TreeNode>(nodes: readonly Node[], leafId: string | null): Node[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const branch: Node[] = [];
  for (let node = leafId === null ? undefined : byId.get(leafId); node;) {
    branch.push(node);
    node = node.parentId === null ? undefined : byId.get(node.parentId);
    // A cycle cannot be recorded (a parent is always an earlier message), but a walk never trusts that.
    if (branch.length > nodes.length) break;
  }
  return branch.reverse();
}

/**
 * The newest message under `id` (itself when nothing follows it), given every message oldest first: the leaf a switch
 * to `id` lands on. A parent always precedes its children, so one pass collects the subtree.
 */
export function newestUnder(order: readonly TreeNode[], id: string): string {
  const under = new Set([id]);
  let newest = id;
  for (const node of order)
    if (node.parentId !== null && under.has(node.parentId)) {
      under.add(node.id);
      newest = node.id;
    }
  return newest;
}

/**
 * Whether an answer to `replyTo` becomes the head: when the head is its question, or an earlier answer to it (a retried
 * turn's incomplete attempt). A branch its user left while the answer was written keeps the head where they went.
 */
export function answerMovesHead(
  headId: string | null,
  replyTo: string,
  parentOf: (id: string) => string | null | undefined,
): boolean {
  return headId !== null && (headId === replyTo || parentOf(headId) === replyTo);
}

/**
 * For each message with alternatives (others of its role after the same parent: the questions an edit or a
 * regeneration set beside it), their ids oldest first and its place among them. A message without any is absent.
 */
export function siblingsOf<Node extends TreeNode & { readonly role: string }>(
  nodes: readonly Node[],
): Map<string, { readonly ids: readonly string[]; readonly index: number }> {
  const groups = new Map<string, string[]>();
  for (const node of nodes) {
    const key = `${node.role}:${node.parentId ?? ''}`;
    const group = groups.get(key);
    if (group) group.push(node.id);
    else groups.set(key, [node.id]);
  }
  const siblings = new Map<string, { ids: readonly string[]; index: number }>();
  for (const ids of groups.values())
    if (ids.length > 1) ids.forEach((id, index) => siblings.set(id, { ids, index }));
  return siblings;
}
