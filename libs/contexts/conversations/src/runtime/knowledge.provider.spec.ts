import { countTokens } from '#tokenizer';
import { fitting } from './knowledge.provider.js';

describe('the Knowledge sources that fit the token share', () => {
  /** The rule, counted passage by passage: the best-ranked first, at least one, until the share is full. */
  const counted = (texts: readonly string[], share: number): string[] => {
    const kept: string[] = [];
    let used = 0;
    for (const text of texts) {
      const tokens = countTokens(text) + 16;
      if (kept.length > 0 && used + tokens > share) break;
      kept.push(text);
      used += tokens;
    }
    return kept;
  };

  it('keeps the same sources as counting every passage, whatever the share', () => {
    const texts = [
      'Configure the proxy certificate before the first deployment of the gateway.',
      'Ünïcödé passages — with “quotes”, emoji 😀 and 中文 — count more bytes than characters.',
      'x'.repeat(600),
      'A short one.',
      'The last passage explains how retries and timeouts interact with the upstream.',
    ];
    const sources = texts.map((text) => ({ text }));
    const total = texts.reduce((sum, text) => sum + Buffer.byteLength(text) + 16, 0);
    for (const share of [0, 1, 20, 40, 60, 100, 150, 200, 300, 400, total - 1, total, total + 1, 100_000]) {
      expect(fitting(sources, share).map((source) => source.text)).toEqual(counted(texts, share));
    }
    expect(fitting([], 100)).toEqual([]);
  });
});
