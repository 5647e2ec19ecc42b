import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StreamedText } from './streamed-text.js';

// A full collection before each heap reading, so the figures compare what is reachable, not what awaits collection.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const WORDS = 200_000;
const word = (index: number): string => `w${index % 1000} `;

describe('StreamedText', () => {
  it('gives back exactly the pieces added, in order', () => {
    const text = new StreamedText();
    let expected = '';
    for (let index = 0; index < 1_000; index++) {
      text.add(word(index));
      text.add('');
      expected += word(index);
    }
    expect(text.text()).toBe(expected);
    text.add('end');
    expect(text.text()).toBe(`${expected}end`);
    expect(new StreamedText().text()).toBe('');
  });

  it('keeps a bounded tail of pieces, joining the rest', () => {
    const text = new StreamedText();
    for (let index = 0; index < 10_000; index++) {
      text.add(word(index));
      expect(text.pending).toBeLessThan(256);
    }
  });

  it('holds about the size of its text, not a rope of every piece (a stalled stream of words)', () => {
    const kept: StreamedText[] = [];
    const before = heapUsed();
    for (let stream = 0; stream < 5; stream++) {
      const text = new StreamedText();
      for (let index = 0; index < WORDS; index++) text.add(word(index));
      kept.push(text);
    }
    const grown = heapUsed() - before;
    const chars = kept.reduce((sum, text) => sum + text.text().length, 0);
    // One-byte strings: the text itself is `chars` bytes. `+=` of the same words held over 5 bytes per character.
    expect(grown).toBeLessThan(2 * chars);
  });
});
