// The offline embedding model: feature hashing, no learned weights. A text's features are its lowercase words
// (runs of Unicode letters and digits, after NFKC) and the character trigrams of each word with boundary marks
// (`<cat>` → `<ca`, `cat`, `at>`); each feature is hashed (FNV-1a 32 over UTF-8, then the murmur3 finaliser so
// the low bits mix) to one of 384 dimensions and a sign, weighted 1 + ln(count), and the vector is L2-normalised.
// Texts sharing words or word pieces come out close in cosine; nothing semantic beyond that.
import type { EmbeddingResult } from '../provider.port.js';
import { countTokens } from '#tokenizer';

export const EMBEDDING_DIMENSIONS = 384;

const WORD = /[\p{L}\p{N}]+/gu;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a, 32 bits, over the UTF-8 bytes of `text`, encoded here as it is hashed (a lone surrogate as U+FFFD, as
 * TextEncoder writes it): encoding each feature into a new byte array first took most of an embedding's time.
 */
export const fnv1a32 = (text: string): number => {
  let hash = FNV_OFFSET;
  const byte = (value: number) => {
    hash = Math.imul(hash ^ value, FNV_PRIME);
  };
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      byte(code);
      continue;
    }
    if (code < 0x800) {
      byte(0xc0 | (code >> 6));
      byte(0x80 | (code & 0x3f));
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
        byte(0xf0 | (code >> 18));
        byte(0x80 | ((code >> 12) & 0x3f));
        byte(0x80 | ((code >> 6) & 0x3f));
        byte(0x80 | (code & 0x3f));
        continue;
      }
      code = 0xfffd;
    }
    byte(0xe0 | (code >> 12));
    byte(0x80 | ((code >> 6) & 0x3f));
    byte(0x80 | (code & 0x3f));
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

/**
 * Each feature's count, by feature, in the order first seen: `w:<word>`, then the trigrams (three code points) of
 * `<word>`. A word's trigrams are cut from the marked word itself, by code units where it has no surrogate pair.
 */
const features = (text: string): Map<string, number> => {
  const counts = new Map<string, number>();
  const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
  for (const word of words(text)) {
    add(`w:${word}`);
    const marked = `<${word}>`;
    if (!/[\ud800-\udfff]/.test(marked)) {
      for (let index = 0; index + 3 <= marked.length; index++) add(`t:${marked.slice(index, index + 3)}`);
      continue;
    }
    const chars = Array.from(marked);
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

/**
 * The vectors, and the inputs' tokens counted when first asked for (once): the gateway asks as it records the call,
 * after a turn's retrieval has used the vector, not before. A result sent from a worker thread is counted there (a
 * copy reads the count).
 */
export const offlineEmbed = (inputs: readonly string[]): EmbeddingResult => {
  let counted: number | undefined;
  return {
    vectors: inputs.map(embedText),
    get inputTokens() {
      return (counted ??= inputs.reduce((sum, input) => sum + countTokens(input), 0));
    },
  };
};
