import { EMBEDDING_DIMENSIONS, embedText, fnv1a32, offlineEmbed } from './offline-embed.js';
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
});
