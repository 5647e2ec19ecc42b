import { fenceFor, fenced } from './markdown-fence.js';

describe('fenceFor', () => {
  it('is three backticks for a text with none, or with shorter runs', () => {
    expect(fenceFor('plain text')).toBe('```');
    expect(fenceFor('a `b` and ``c``')).toBe('```');
  });

  it('is one backtick longer than the longest run, wherever it is', () => {
    expect(fenceFor('```')).toBe('````');
    expect(fenceFor('start ````` middle ` end ``````')).toBe('```````');
    expect(fenceFor('`'.repeat(12))).toBe('`'.repeat(13));
  });

  it('measures a text of 150,000 runs without overflowing the stack', () => {
    const text = '` '.repeat(150_000) + '````';
    expect(fenceFor(text)).toBe('`````');
  });
});

describe('fenced', () => {
  it('puts the label above a fence that the text cannot close', () => {
    expect(fenced('Output:', 'has ``` inside')).toBe('Output:\n````\nhas ``` inside\n````');
  });
});
