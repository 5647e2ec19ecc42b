// How the offline chat model answers from retrieved sources without a language model: plain word overlap between
// the question and each passage, so the same sources and question always give the same answer, and a test can tell
// in advance which source is quoted and cited. The answer says it is a stand-in, like every offline reply.
import type { PromptSource } from '../grounding.js';

export const OFFLINE_GROUNDED_PREFIX =
  'Offline stand-in answer (no language model was called), from the retrieved sources: ';
export const OFFLINE_UNGROUNDED_PREFIX = 'Offline stand-in answer (no language model was called): ';
export const OFFLINE_REMEMBERED_PREFIX =
  'Offline stand-in answer (no language model was called), from memory: ';
/** Joins what the sources say and what is remembered, when both answer. */
export const ALSO_REMEMBERED = ' I also remember: ';
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

// Words that say nothing about the topic: without them every English question would match every passage.
const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each else few for from further had has have ' +
    'having he her here hers him his how i if in into is it its just me more most my no nor not of off on once ' +
    'only or other our ours out over own please same she should so some such than that the their theirs them ' +
    'then there these they this those through to too under until up us very was we were what when where which ' +
    'while who whom whose why will with would you your yours s t d ll m re ve'
  ).split(' '),
);

/** The distinct words of a text that say something about its topic (lower case, stop words left out). */
export const contentWords = (text: string): Set<string> =>
  new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOP_WORDS.has(word)));

/**
 * How much a text says about the question: 2 for each question word it holds, 1 for each it holds inside a longer
 * word ("volcano" in "stratovolcano"), so the passage that names the topic outranks one that only repeats a word.
 */
export const sharedWords = (question: ReadonlySet<string>, text: string): number => {
  let score = 0;
  for (const word of contentWords(text))
    if (question.has(word)) score += 2;
    else if (word.length > 4 && [...question].some((asked) => asked.length >= 4 && word.includes(asked)))
      score += 1;
  return score;
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

/** The recalled memory that shares the most with the question (the earliest of equals), or null when none does. */
export const rememberedAnswer = (question: string, memories: readonly string[]): string | null => {
  const words = contentWords(question);
  let best: string | null = null;
  let bestScore = 0;
  for (const memory of memories) {
    const score = sharedWords(words, memory);
    if (score > bestScore) [best, bestScore] = [memory, score];
  }
  return best;
};
