// How the offline chat model answers from retrieved sources without a language model: plain word overlap between
// the question and each passage, so the same sources and question always give the same answer, and a test can tell
// in advance which source is quoted and cited. The answer says it is a stand-in, like every offline reply.
import { contentWords, sharedWords } from '#model-providers/offline-kit';
import type { PromptSource } from '../runtime/grounding.js';

export const OFFLINE_GROUNDED_PREFIX =
  'Offline stand-in answer (no language model was called), from the retrieved sources: ';
export const OFFLINE_UNGROUNDED_PREFIX = 'Offline stand-in answer (no language model was called): ';
/** Sources quoted at most: enough to show citing more than one, short enough to read. */
const QUOTED_SOURCES = 2;

/** "search …", "look up …", "find …", optionally "the knowledge base" and "for": the rest is the query. */
const SEARCH_REQUEST = /\b(search|look up|find)\b(?: (?:the )?knowledge(?: base)?)?(?: for)? (.+)/i;

/** The query of a message asking to search the knowledge, or undefined when it does not ask that. */
export const searchQueryOf = (message: string): string | undefined => {
  const query = SEARCH_REQUEST.exec(message)?.[2]
    ?.replace(/[\s?.!]+$/u, '')
    .trim();
  return query ? query : undefined;
};

const wordCount = (text: string): number => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

const sentencesOf = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((sentence) =>
      sentence
        .replace(/^#+\s*/u, '')
        .replace(/\s+/gu, ' ')
        .trim(),
    )
    .filter((sentence) => sentence !== '');

/** The sentence sharing the most with the question; of equals the longer (a heading says less), then the earliest. */
const bestSentence = (text: string, question: ReadonlySet<string>): string => {
  let best = '';
  let bestScore = -1;
  for (const sentence of sentencesOf(text)) {
    const score = sharedWords(question, sentence);
    if (score > bestScore || (score === bestScore && wordCount(sentence) > wordCount(best)))
      [best, bestScore] = [sentence, score];
  }
  return best;
};

/**
 * The answer to `question` from `sources`: the sentence of each of the (up to two) sources sharing the most words
 * with it, cited `[n]`; ties go to the lower number, and a source sharing no word is never quoted. A search request
 * is matched by its query, so "search"/"find" do not count as words of the question.
 */
export const groundedAnswer = (question: string, sources: readonly PromptSource[]): string => {
  const words = contentWords(searchQueryOf(question) ?? question);
  const quoted = sources
    .map((source) => ({ source, score: sharedWords(words, source.text) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || a.source.index - b.source.index)
    .slice(0, QUOTED_SOURCES);
  if (quoted.length === 0)
    return `${OFFLINE_UNGROUNDED_PREFIX}the retrieved sources do not answer "${question}".`;
  return (
    OFFLINE_GROUNDED_PREFIX +
    quoted.map(({ source }) => `${bestSentence(source.text, words)} [${source.index}]`).join(' ')
  );
};
