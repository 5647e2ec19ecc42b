import { MessageTree } from './message-tree.js';

const chain = (count: number): MessageTree => {
  let tree = MessageTree.empty();
  for (let i = 0; i < count; i++) tree = tree.with(`m${i}`, i === 0 ? null : `m${i - 1}`);
  return tree;
};

describe('MessageTree', () => {
  it('answers for its own messages only, while a longer tree shares its store', () => {
    const short = chain(3);
    const long = short.with('m3', 'm2');
    expect(long.ids()).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(long.parentOf('m3')).toBe('m2');
    expect(short.ids()).toEqual(['m0', 'm1', 'm2']);
    expect(short.has('m3')).toBe(false);
    expect(short.parentOf('m3')).toBeUndefined();
    expect(short.indexOf('m3')).toBe(-1);
    expect(short.size).toBe(3);
  });

  it('extends an earlier view in a store of its own, leaving the longer one as it was', () => {
    const base = chain(3);
    const first = base.with('a', 'm2');
    // A retried decision folds other events into the same earlier state.
    const second = base.with('b', 'm1');
    expect(second.ids()).toEqual(['m0', 'm1', 'm2', 'b']);
    expect(second.has('a')).toBe(false);
    expect(second.parentOf('b')).toBe('m1');
    expect(first.ids()).toEqual(['m0', 'm1', 'm2', 'a']);
    expect(first.has('b')).toBe(false);
    // Both go on growing apart.
    expect(first.with('a2', 'a').ids()).toEqual(['m0', 'm1', 'm2', 'a', 'a2']);
    expect(second.with('b2', 'b').ids()).toEqual(['m0', 'm1', 'm2', 'b', 'b2']);
    expect(base.ids()).toEqual(['m0', 'm1', 'm2']);
  });

  it('removes a message, handing its children to its parent, and keeps the order', () => {
    const tree = chain(3).with('m1b', 'm0').with('m3', 'm2');
    const without = tree.without('m1');
    expect(without.ids()).toEqual(['m0', 'm2', 'm1b', 'm3']);
    expect(without.parentOf('m2')).toBe('m0');
    expect(without.parentOf('m1b')).toBe('m0');
    expect(without.indexOf('m3')).toBe(3);
    expect(tree.has('m1')).toBe(true);
    expect(tree.parentOf('m2')).toBe('m1');
    expect(tree.without('absent')).toBe(tree);
  });

  it('gives a message recorded again its new parent in its old place', () => {
    const tree = chain(3).with('m1', 'm2');
    expect(tree.ids()).toEqual(['m0', 'm1', 'm2']);
    expect(tree.parentOf('m1')).toBe('m2');
  });

  it('keeps every view of a long conversation grown message by message to its own messages', () => {
    let tree = MessageTree.empty();
    const views: MessageTree[] = [];
    for (let i = 0; i < 20_000; i++) {
      tree = tree.with(`m${i}`, i === 0 ? null : `m${i - 1}`);
      if (i % 5_000 === 0) views.push(tree);
    }
    expect(tree.size).toBe(20_000);
    expect(tree.parentOf('m19999')).toBe('m19998');
    // Every view kept on the way still sees exactly its own messages.
    expect(views.map((view) => [view.size, view.has('m19999'), view.indexOf('m5000')])).toEqual([
      [1, false, -1],
      [5_001, false, 5_000],
      [10_001, false, 5_000],
      [15_001, false, 5_000],
    ]);
  });
});
