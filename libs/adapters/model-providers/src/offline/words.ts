// Word scoring shared by the offline responders (grounded answers, recalled memories, Skills to load): plain word
// overlap, so the same text always scores the same and a test can tell in advance what is picked.

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
