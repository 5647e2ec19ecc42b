// The offline embedding model: feature hashing, no learned weights. A text's features are its lowercase words
// (runs of Unicode letters and digits, after NFKC) and the character trigrams of each word with boundary marks
// (`<cat>` → `<ca`, `cat`, `at>`); each feature is hashed (FNV-1a 32 over UTF-8, then the murmur3 finaliser so
// the low bits mix) to one of 384 dimensions and a sign, weighted 1 + ln(count), and the vector is L2-normalised.
// Texts sharing words or word pieces come out close in cosine; nothing semantic beyond that.
import type { EmbeddingResult } from '../provider.port.js';
import { countTokens } from '#tokenizer';

export const EMBEDDING_DIMENSIONS = 384;

const WORD = /[\p{L}\p{N}]+/gu;
const utf8 = new TextEncoder();

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export const fnv1a32 = (text: string): number => {
  let hash = 0x811c9dc5;
  for (const byte of utf8.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

const finalMix = (value: number): number => {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
};

/** Lowercase words: the tokens shared by embeddings and the offline reranker. */
export const words = (text: string): string[] => text.normalize('NFKC').toLowerCase().match(WORD) ?? [];

const features = (text: string): Map<string, number> => {
  const counts = new Map<string, number>();
  const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
  for (const word of words(text)) {
    add(`w:${word}`);
    const chars = Array.from(`<${word}>`);
    for (let index = 0; index + 3 <= chars.length; index++)
      add(`t:${chars.slice(index, index + 3).join('')}`);
  }
  return counts;
};

/**
 * The unit-length embedding of `text`. A text without any letter or digit (the empty string, punctuation only) has
 * no features: its embedding is the zero vector, which has no direction (cosine with it is 0 by convention, not NaN,
 * when computed as a plain dot product).
 */
export const embedText = (text: string): number[] => {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const [feature, count] of features(text)) {
    const hash = finalMix(fnv1a32(feature));
    const index = (hash & 0x7fffffff) % EMBEDDING_DIMENSIONS;
    vector[index] += (hash >>> 31 === 1 ? -1 : 1) * (1 + Math.log(count));
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
};

export const offlineEmbed = (inputs: readonly string[]): EmbeddingResult => ({
  vectors: inputs.map(embedText),
  inputTokens: inputs.reduce((sum, input) => sum + countTokens(input), 0),
});
