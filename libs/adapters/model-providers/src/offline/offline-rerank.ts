// The offline reranker: lexical BM25 (k1 1.2, b 0.75) of each document against the query, with document
// frequencies and the average length taken from the documents of the request. Words are those of the offline
// embeddings (lowercase runs of Unicode letters and digits). The raw score s ≥ 0 is mapped to s / (s + 1), so
// scores lie in (0, 1) and a higher raw score always gives a higher score.
import type { RerankResult } from '../provider.port.js';
import { words } from './offline-embed.js';
import { countTokens } from '#tokenizer';

const K1 = 1.2;
const B = 0.75;
/**
 * Added to the raw score of the document at position i of n: (n - i) / (n + 1) × TIE_BREAK, below any difference
 * BM25 produces in practice. Equal documents then score strictly in their given order (a stable tie break that
 * survives any sort) and even a document sharing nothing with the query scores above 0.
 */
const TIE_BREAK = 1e-6;

/** Raw BM25 score of each document, in the documents' order. */
export const bm25 = (query: string, documents: readonly string[]): number[] => {
  const terms = [...new Set(words(query))];
  const docs = documents.map((document) => {
    const frequencies = new Map<string, number>();
    const tokens = words(document);
    for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
    return { length: tokens.length, frequencies };
  });
  const count = docs.length;
  const averageLength = count === 0 ? 0 : docs.reduce((sum, doc) => sum + doc.length, 0) / count;
  const idf = new Map(
    terms.map((term) => {
      const df = docs.filter((doc) => doc.frequencies.has(term)).length;
      // The Lucene form: never negative, even for a term in every document.
      return [term, Math.log(1 + (count - df + 0.5) / (df + 0.5))];
    }),
  );
  return docs.map((doc) => {
    const norm = averageLength === 0 ? 1 : 1 - B + (B * doc.length) / averageLength;
    let score = 0;
    for (const term of terms) {
      const tf = doc.frequencies.get(term) ?? 0;
      if (tf > 0) score += (idf.get(term) ?? 0) * ((tf * (K1 + 1)) / (tf + K1 * norm));
    }
    return score;
  });
};

export const offlineRerank = (query: string, documents: readonly string[]): RerankResult => {
  const count = documents.length;
  const scores = bm25(query, documents).map((raw, index) => {
    const shifted = raw + ((count - index) / (count + 1)) * TIE_BREAK;
    return shifted / (shifted + 1);
  });
  const queryTokens = countTokens(query);
  return {
    scores,
    inputTokens: documents.reduce((sum, document) => sum + queryTokens + countTokens(document), 0),
  };
};
