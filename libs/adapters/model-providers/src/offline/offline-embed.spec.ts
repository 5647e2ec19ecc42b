import { EMBEDDING_DIMENSIONS, embedText, fnv1a32, offlineEmbed, words } from './offline-embed.js';
import { countTokens } from '#tokenizer';

const cosine = (a: readonly number[], b: readonly number[]) =>
  a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const norm = (vector: readonly number[]) => Math.hypot(...vector);

describe('Offline embeddings', () => {
  const texts = [
    'The cat sat on the mat.',
    'A cat was sitting on the mat',
    'Quarterly revenue grew by twelve percent.',
    'Größe und Übermut — 日本語',
  ];

  it('gives 384 unit-length dimensions per input, and counts input tokens', () => {
    const result = offlineEmbed(texts);
    expect(result.vectors).toHaveLength(texts.length);
    for (const vector of result.vectors) {
      expect(vector).toHaveLength(EMBEDDING_DIMENSIONS);
      expect(norm(vector)).toBeCloseTo(1, 10);
    }
    expect(result.inputTokens).toBe(texts.reduce((sum, text) => sum + countTokens(text), 0));
  });

  it('is deterministic', () => {
    expect(offlineEmbed(texts)).toEqual(offlineEmbed([...texts]));
  });

  it('puts similar texts closer than unrelated ones', () => {
    const [cat, sittingCat, revenue] = texts.map(embedText);
    expect(cosine(cat!, sittingCat!)).toBeGreaterThan(0.5);
    expect(cosine(cat!, sittingCat!)).toBeGreaterThan(cosine(cat!, revenue!) + 0.3);
    expect(cosine(embedText('running shoes'), embedText('shoes for running'))).toBeGreaterThan(
      cosine(embedText('running shoes'), embedText('tax return deadline')),
    );
  });

  it('ignores case, punctuation and Unicode compatibility forms', () => {
    expect(embedText('Hello, WORLD!')).toEqual(embedText('hello world'));
    expect(embedText('ｆｕｌｌｗｉｄｔｈ')).toEqual(embedText('fullwidth'));
  });

  it('gives the zero vector for a text without letters or digits', () => {
    for (const text of ['', '   ', '?!…'])
      expect(embedText(text)).toEqual(new Array<number>(EMBEDDING_DIMENSIONS).fill(0));
  });

  it('hashes with FNV-1a 32 over UTF-8', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes each UTF-8 byte as TextEncoder writes it, lone surrogates as U+FFFD', () => {
    const reference = (text: string) => {
      let hash = 0x811c9dc5;
      for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193);
      return hash >>> 0;
    };
    for (const text of [
      'ascii',
      'é',
      'ß€',
      '日本語',
      '𝔘𝔫𝔦',
      '🙂x',
      'a\ud800b',
      '\udc00',
      'x\ud83d',
      '\u07ff\u0800\uffff',
    ])
      expect(fnv1a32(text)).toBe(reference(text));
  });

  it('gives the vectors the features counted from code points give, to the last bit', () => {
    // The embedding as first written: every feature encoded to bytes, every trigram cut from the word's code points.
    // Indexes built with it must find the same neighbours (their stored vectors are not recomputed).
    const reference = (text: string): number[] => {
      const counts = new Map<string, number>();
      const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
      for (const word of words(text)) {
        add(`w:${word}`);
        const chars = Array.from(`<${word}>`);
        for (let index = 0; index + 3 <= chars.length; index++)
          add(`t:${chars.slice(index, index + 3).join('')}`);
      }
      const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
      for (const [feature, count] of counts) {
        let hash = 0x811c9dc5;
        for (const byte of new TextEncoder().encode(feature)) hash = Math.imul(hash ^ byte, 0x01000193);
        hash ^= hash >>> 16;
        hash = Math.imul(hash, 0x85ebca6b);
        hash ^= hash >>> 13;
        hash = Math.imul(hash, 0xc2b2ae35);
        hash = (hash ^ (hash >>> 16)) >>> 0;
        vector[(hash & 0x7fffffff) % EMBEDDING_DIMENSIONS] +=
          (hash >>> 31 === 1 ? -1 : 1) * (1 + Math.log(count));
      }
      const length = Math.hypot(...vector);
      return length === 0 ? vector : vector.map((value) => value / length);
    };
    // Words of Latin, Greek, CJK, astral letters and digits, mixed in one word too; repeated words weigh more.
    const alphabet = [...'abcxyzäöüßεληνικά日本語中文한국어', '𝔘', '𝔫', '𝟙', '𐐷', '٣', 'Ⅻ', 'ﬁ'];
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const texts = Array.from({ length: 300 }, () =>
      Array.from({ length: 1 + next(12) }, () =>
        Array.from({ length: 1 + next(9) }, () => alphabet[next(alphabet.length)]).join(''),
      ).join(next(3) === 0 ? ', ' : ' '),
    );
    for (const text of [...texts, ...texts.map((text) => `${text} ${text}`)])
      expect(embedText(text)).toEqual(reference(text));
  });
});
