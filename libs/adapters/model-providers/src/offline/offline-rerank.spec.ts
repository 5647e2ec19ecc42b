import { bm25, offlineRerank } from './offline-rerank.js';
import { countTokens } from '#tokenizer';

const QUERY = 'How do I reset my password?';
const DOCUMENTS = [
  'Our office is closed on public holidays.',
  'To reset your password, open Settings and choose "Reset password".',
  'Password rules: at least twelve characters.',
  'The cafeteria serves lunch from noon.',
];

describe('Offline rerank', () => {
  it('scores the relevant document above partial and irrelevant ones', () => {
    const { scores } = offlineRerank(QUERY, DOCUMENTS);
    expect(scores).toHaveLength(DOCUMENTS.length);
    const ranked = scores.map((score, index) => ({ score, index })).sort((a, b) => b.score - a.score);
    expect(ranked.map((entry) => entry.index)).toEqual([1, 2, 0, 3]);
  });

  it('gives scores strictly between 0 and 1', () => {
    const { scores } = offlineRerank(QUERY, [...DOCUMENTS, '', QUERY.repeat(50)]);
    for (const score of scores) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThan(1);
    }
  });

  it('maps BM25 monotonically and breaks ties in document order', () => {
    const raw = bm25(QUERY, DOCUMENTS);
    const { scores } = offlineRerank(QUERY, DOCUMENTS);
    for (let i = 0; i < raw.length; i++)
      for (let j = 0; j < raw.length; j++)
        if (raw[i]! > raw[j]!) expect(scores[i]).toBeGreaterThan(scores[j]!);
    const tied = offlineRerank('password', [
      'password reset',
      'nothing here',
      'password reset',
      'nothing here',
    ]).scores;
    expect(tied[0]).toBeGreaterThan(tied[2]!);
    expect(tied[2]).toBeGreaterThan(tied[1]!);
    expect(tied[1]).toBeGreaterThan(tied[3]!);
  });

  it('is deterministic and counts the query once per document', () => {
    const result = offlineRerank(QUERY, DOCUMENTS);
    expect(offlineRerank(QUERY, [...DOCUMENTS])).toEqual(result);
    expect(result.inputTokens).toBe(
      DOCUMENTS.reduce((sum, document) => sum + countTokens(QUERY) + countTokens(document), 0),
    );
    expect(offlineRerank(QUERY, [])).toEqual({ scores: [], inputTokens: 0 });
  });
});
