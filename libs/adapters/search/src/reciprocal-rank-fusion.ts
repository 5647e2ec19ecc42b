// Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): each ranked list gives an item 1 / (k + rank), the
// sums order the fused list. Ranks, not scores, are fused, so BM25 scores and cosine similarities need no common
// scale, and every adapter fuses the same way whatever its engine's scores look like.

/** The constant of the original paper; it damps the weight of the very first ranks. */
export const RRF_K = 60;

export interface FusedRanking<T> {
  readonly id: T;
  readonly score: number;
  /** The item's 1-based rank in each input list, in list order; null where the list does not hold it. */
  readonly ranks: readonly (number | null)[];
}

/**
 * Fuses ranked lists (best first) into one, best first. An item repeated within a list counts at its best rank.
 * Ties keep a deterministic order: the better single rank first, then the order in which items were first seen.
 */
export function reciprocalRankFusion<T>(
  lists: readonly (readonly T[])[],
  k: number = RRF_K,
): FusedRanking<T>[] {
  if (!Number.isFinite(k) || k < 0) throw new RangeError(`k must be a finite number ≥ 0, not ${k}`);
  const fused = new Map<T, { score: number; ranks: (number | null)[]; best: number }>();
  lists.forEach((list, listIndex) => {
    list.forEach((id, position) => {
      let entry = fused.get(id);
      if (!entry) {
        entry = { score: 0, ranks: lists.map(() => null), best: Infinity };
        fused.set(id, entry);
      }
      if (entry.ranks[listIndex] !== null) return;
      const rank = position + 1;
      entry.ranks[listIndex] = rank;
      entry.score += 1 / (k + rank);
      entry.best = Math.min(entry.best, rank);
    });
  });
  // Map iteration follows first insertion and Array#sort is stable: equal items keep first-seen order.
  return [...fused.entries()]
    .sort(([, a], [, b]) => b.score - a.score || a.best - b.best)
    .map(([id, { score, ranks }]) => ({ id, score, ranks }));
}
