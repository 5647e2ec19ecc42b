import { reciprocalRankFusion, RRF_K } from './reciprocal-rank-fusion.js';

describe('reciprocalRankFusion', () => {
  it('scores each item 1 / (k + rank) summed over the lists that hold it', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['c', 'a'],
    ]);
    expect(fused.map((item) => item.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]).toEqual({ id: 'a', score: 1 / 61 + 1 / 62, ranks: [1, 2] });
    expect(fused[1]).toEqual({ id: 'c', score: 1 / 63 + 1 / 61, ranks: [3, 1] });
    expect(fused[2]).toEqual({ id: 'b', score: 1 / 62, ranks: [2, null] });
    expect(RRF_K).toBe(60);
  });

  it('puts an item both lists agree on above items that top only one list', () => {
    const bm25 = ['keyword-only', 'both', 'x1', 'x2'];
    const vector = ['vector-only', 'both', 'y1', 'y2'];
    expect(reciprocalRankFusion([bm25, vector])[0]!.id).toBe('both');
  });

  it('uses k: a smaller k weighs the first ranks more', () => {
    const lists = [
      ['a', 'b', 'c', 'd'],
      ['d', 'c', 'b', 'a'],
      ['b', 'z'],
    ];
    expect(reciprocalRankFusion(lists, 0)[0]).toEqual({
      id: 'b',
      score: 1 / 2 + 1 / 3 + 1,
      ranks: [2, 3, 1],
    });
    expect(reciprocalRankFusion(lists, 1000)[0]!.id).toBe('b');
    expect(reciprocalRankFusion([['a'], ['b', 'a']], 0).map((item) => item.id)).toEqual(['a', 'b']);
  });

  it('counts an item repeated within one list once, at its best rank', () => {
    expect(reciprocalRankFusion([['a', 'b', 'a']])).toEqual([
      { id: 'a', score: 1 / 61, ranks: [1] },
      { id: 'b', score: 1 / 62, ranks: [2] },
    ]);
  });

  it('breaks ties by the better single rank, then by first appearance', () => {
    expect(reciprocalRankFusion([['x'], ['y']]).map((item) => item.id)).toEqual(['x', 'y']);
    expect(reciprocalRankFusion([['y'], ['x']]).map((item) => item.id)).toEqual(['y', 'x']);
    // With k = 0 all three score exactly 1; 'b' has no first place, so it comes last.
    expect(
      reciprocalRankFusion(
        [
          ['a', 'b'],
          ['c', 'b'],
        ],
        0,
      ).map((item) => [item.id, item.score]),
    ).toEqual([
      ['a', 1],
      ['c', 1],
      ['b', 1],
    ]);
    // Equal scores and equal best ranks: first seen first.
    expect(
      reciprocalRankFusion([
        ['m', 'n'],
        ['n', 'm'],
      ]).map((item) => item.id),
    ).toEqual(['m', 'n']);
  });

  it('fuses any id type by identity, and handles no lists and empty lists', () => {
    expect(reciprocalRankFusion([[3, 1], [1]]).map((item) => item.id)).toEqual([1, 3]);
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
    expect(reciprocalRankFusion([[], ['a']])).toEqual([{ id: 'a', score: 1 / 61, ranks: [null, 1] }]);
  });

  it('refuses a negative or non-finite k', () => {
    expect(() => reciprocalRankFusion([['a']], -1)).toThrow(RangeError);
    expect(() => reciprocalRankFusion([['a']], Number.NaN)).toThrow(RangeError);
    expect(() => reciprocalRankFusion([['a']], Infinity)).toThrow(RangeError);
  });
});
