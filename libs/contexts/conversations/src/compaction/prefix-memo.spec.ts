import { PrefixMemo } from './prefix-memo.js';

const items = (...names: string[]) => names.map((name) => ({ name }));

describe('PrefixMemo', () => {
  it('makes outputs only for the objects after the prefix a history shares with the last one', () => {
    const memo = new PrefixMemo<{ name: string }, string>();
    const made: string[] = [];
    const make = (item: { name: string }) => {
      made.push(item.name);
      return item.name.toUpperCase();
    };
    const [a, b, c, d, e] = items('a', 'b', 'c', 'd', 'e');
    expect(memo.map([a!, b!, c!], make)).toEqual(['A', 'B', 'C']);
    // The next turn: the same objects, one replaced at the end (the question posted last is now a stored message),
    // and two new ones.
    expect(memo.map([a!, b!, d!, e!], make)).toEqual(['A', 'B', 'D', 'E']);
    expect(made).toEqual(['a', 'b', 'c', 'd', 'e']);

    // Equal objects are not the same objects: nothing is reused for them.
    made.length = 0;
    expect(memo.map(items('a', 'b'), make)).toEqual(['A', 'B']);
    expect(made).toEqual(['a', 'b']);

    // A shorter history of the same objects reuses its part; what a caller does to its array changes nothing kept.
    made.length = 0;
    const outputs = memo.map([a!, b!], make);
    expect(made).toEqual([]);
    outputs.length = 0;
    expect(memo.map([a!, b!, d!], make)).toEqual(['A', 'B', 'D']);
    expect(made).toEqual(['d']);
    expect(memo.map([], make)).toEqual([]);
  });
});
