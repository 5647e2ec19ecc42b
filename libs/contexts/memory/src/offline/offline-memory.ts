// How the offline chat model answers a memory extraction request (the format of `memory-extraction.ts`) without a
// language model: plain statement patterns over the user's message, sentence by sentence, so the same turn always
// gives the same candidates and a test can tell them in advance. The assistant's answer is never a source.
//
// A sentence is a candidate when (case-insensitively, after a leading "please", "also", "btw"… and a final "." or
// "!"):
// - it starts with "remember" ("remember that X", "remember: X", "remember X"): X, whatever it says (screening, not
//   extraction, refuses what must not be stored); "remember to …" is a reminder, not a fact, and is skipped;
// - it states something about the user: "my name is X", "call me X", "I prefer / like / love / hate X",
//   "I'm (I am) allergic to X", "I'm (I am) a/an X", "I work at / as / on X", "I live in X", "my favourite (favorite)
//   X is Y";
// - it states something about the team: it starts with "we", "our team", "our company", "our organisation"
//   ("organization"), "our project", "the team" or "in our team" (after "remember", any "our …" too);
// - it is addressed to the team: "remember for the team: X", "note for the team: X", "for everyone: X" (also "for the
//   team:", "for all of us:", "team note:", "remember for everyone:", "note for everyone:"): X, scope `agent`.
// Questions (a sentence ending with "?") are skipped, and so is a candidate already remembered (equal to a listed
// fact, or the statement itself, but for case, spacing and final punctuation), and a repeated one.
//
// The text: about the user, rewritten in the third person ("my name is Ana" → "The user's name is Ana.", "I prefer
// tea with my lunch" → "The user prefers tea with their lunch.", "call me Ana" → "The user's name is Ana."), scope
// `personal`; about the team, kept as the user said it ("Our team deploys on Fridays."), scope `agent`; anything else
// after "remember", kept as said, scope `personal`. Always one capital first letter and a final full stop.
import {
  MAX_MEMORY_CANDIDATES,
  MAX_MEMORY_TEXT_LENGTH,
  memoryTextKey,
  parseExtractionTurn,
  type MemoryCandidate,
} from '../memory-extraction.js';

const A = "['’]"; // an apostrophe, straight or curly

/** Words before a statement that change nothing: "please remember …", "btw, I live in Lyon". */
const FILLER = /^(?:(?:please|also|and|so|oh|ok|okay|btw|by the way|just|fyi)\b[\s,]*)+/iu;
/** "remember", "remember that", "remember:", "please remember, that" — the rest is the fact. */
const REMEMBER = /^remember\b(?:\s*[:,-]\s*|\s+)(?:that\b[\s,:]*)?/iu;
const REMINDER = /^to\b/iu;
/** "remember for the team: X", "note for the team: X", "for everyone: X" — the rest is a team fact. */
const FOR_THE_TEAM =
  /^(?:(?:remember|note|a note)\s+(?:for|to)\s+(?:the (?:whole )?team|our team|everyone|everybody|all of us)|for (?:the (?:whole )?team|our team|everyone|everybody|all of us)|team note)(?:\s*[:,-]\s*(?:that\b[\s,:]*)?|\s+that\b[\s,:]*)/iu;
const CALL_ME = /^call me\s+(.+)$/iu;
/** A statement about the user, as the patterns above list them. */
const ABOUT_USER = new RegExp(
  '^(?:my name is|i prefer|i like|i love|i hate|' +
    `i(?:${A}m| am) allergic to|i(?:${A}m| am) an?|i work (?:at|as|on)|i live in|my favou?rite \\S+ is)\\s+\\S`,
  'iu',
);
const ABOUT_TEAM = /^(?:we|our (?:team|company|organi[sz]ation|project)|the team|in our team)\b/iu;
/** After "remember": any "our …" is about the team too. */
const ABOUT_TEAM_REMEMBERED = /^(?:we|our|the team|in our team)\b/iu;

const sentencesOf = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((sentence) => sentence.replace(/\s+/gu, ' ').trim())
    .filter((sentence) => sentence !== '');

const isQuestion = (sentence: string): boolean => /\?["'’”)\]]*$/u.test(sentence);

/** The sentence without its filler words and final "." / "!" (and spaces). */
const bare = (sentence: string): string =>
  sentence
    .replace(FILLER, '')
    .replace(/[\s.!]+$/u, '')
    .trim();

/** A fact as stored: a capital first letter and a final full stop. */
const asFact = (text: string): string => {
  const fact = `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
  return /[.!?…]$/u.test(fact) ? fact : `${fact}.`;
};

/** Other first-person words of a statement about the user, in the third person ("my" → "their", "I am" → "they are"). */
const PRONOUNS: readonly (readonly [RegExp, string])[] = [
  [new RegExp(`\\bi(?:${A}m| am)\\b`, 'giu'), 'they are'],
  [/\bi was\b/giu, 'they were'],
  [new RegExp(`\\bi(${A}(?:ve|d|ll))\\b`, 'giu'), 'they$1'],
  [/\bi\b/giu, 'they'],
  [/\bmyself\b/giu, 'themselves'],
  [/\bmine\b/giu, 'theirs'],
  [/\bmy\b/giu, 'their'],
  [/\bme\b/giu, 'them'],
];

const thirdPersonRest = (text: string): string =>
  PRONOUNS.reduce((result, [pattern, replacement]) => result.replace(pattern, replacement), text);

/** Verbs that stay as they are after "the user": modals and common past forms. */
const UNCHANGED = new Set(
  (
    "can cannot can’t can't could couldn’t couldn't will won’t won't would wouldn’t wouldn't should shouldn’t " +
    "shouldn't must might may shall was had did went got made said knew thought took came saw left began became " +
    'grew met bought built found wrote ran spent taught used'
  ).split(' '),
);
const IRREGULAR: Readonly<Record<string, string>> = {
  am: 'is',
  have: 'has',
  do: 'does',
  go: 'goes',
  "don't": "doesn't",
  'don’t': 'doesn’t',
};
/** Adverbs between "I" and its verb: "I always drink tea" → "the user always drinks tea". */
const ADVERBS = new Set(
  'also always never usually often sometimes really just only still mostly rarely'.split(' '),
);

/** The verb agreeing with "the user" instead of "I". */
const conjugate = (verb: string): string => {
  const lower = verb.toLowerCase();
  const irregular = IRREGULAR[lower];
  if (irregular) return irregular;
  if (UNCHANGED.has(lower) || lower.endsWith('ed') || !/^\p{L}+$/u.test(verb)) return verb;
  if (/(?:s|sh|ch|x|z|o)$/u.test(lower)) return `${verb}es`;
  if (/[^aeiou]y$/u.test(lower)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
};

/** A statement in the first person rewritten about "the user"; other statements unchanged. */
const thirdPerson = (statement: string): string => {
  const possessive = /^my\s+(.*)$/isu.exec(statement);
  if (possessive) return `The user's ${thirdPersonRest(possessive[1]!)}`;
  const contracted = new RegExp(`^i${A}(m|ve|d|ll)\\s+(.*)$`, 'isu').exec(statement);
  if (contracted) {
    const verb = { m: 'is', ve: 'has', d: 'would', ll: 'will' }[contracted[1]!.toLowerCase()] ?? 'is';
    return `The user ${verb} ${thirdPersonRest(contracted[2]!)}`;
  }
  const subject = /^i\s+(.*)$/isu.exec(statement);
  if (!subject) return statement;
  const words = subject[1]!.split(' ');
  const found = words.findIndex((word) => !ADVERBS.has(word.toLowerCase()));
  const at = found < 0 ? words.length - 1 : found;
  words[at] = conjugate(words[at]!);
  const tail = words.slice(at + 1).join(' ');
  return `The user ${words.slice(0, at + 1).join(' ')}${tail ? ` ${thirdPersonRest(tail)}` : ''}`;
};

/** The candidate a statement makes, or undefined when it is not one. */
const candidateOf = (statement: string, remembered: boolean): MemoryCandidate | undefined => {
  const name = CALL_ME.exec(statement);
  if (name) return { text: asFact(`The user's name is ${name[1]!}`), scope: 'personal' };
  if ((remembered ? ABOUT_TEAM_REMEMBERED : ABOUT_TEAM).test(statement))
    return { text: asFact(statement), scope: 'agent' };
  if (remembered || ABOUT_USER.test(statement))
    return { text: asFact(thirdPerson(statement)), scope: 'personal' };
  return undefined;
};

/** The candidate of one sentence of the user's message, or undefined. */
const sentenceCandidate = (
  sentence: string,
): { candidate: MemoryCandidate; statement: string } | undefined => {
  if (isQuestion(sentence)) return undefined;
  const statement = bare(sentence);
  const team = FOR_THE_TEAM.exec(statement);
  if (team) {
    const fact = bare(statement.slice(team[0].length));
    if (fact === '' || REMINDER.test(fact)) return undefined;
    return { candidate: { text: asFact(fact), scope: 'agent' }, statement: fact };
  }
  const remember = REMEMBER.exec(statement);
  if (remember) {
    const fact = bare(statement.slice(remember[0].length));
    if (fact === '' || REMINDER.test(fact)) return undefined;
    const candidate = candidateOf(fact, true);
    return candidate && { candidate, statement: fact };
  }
  const candidate = candidateOf(statement, false);
  return candidate && { candidate, statement };
};

const cut = (text: string): string => {
  const chars = Array.from(text);
  return chars.length <= MAX_MEMORY_TEXT_LENGTH
    ? text
    : chars.slice(0, MAX_MEMORY_TEXT_LENGTH).join('').trimEnd();
};

/** The candidates the offline model finds in a user's message, in order, none of them among `recalled`. */
export const offlineMemoryCandidates = (
  userMessage: string,
  recalled: readonly string[],
): MemoryCandidate[] => {
  const known = new Set(recalled.map(memoryTextKey));
  const candidates: MemoryCandidate[] = [];
  for (const sentence of sentencesOf(userMessage)) {
    const found = sentenceCandidate(sentence);
    if (!found) continue;
    const key = memoryTextKey(found.candidate.text);
    if (known.has(key) || known.has(memoryTextKey(found.statement))) continue;
    known.add(key);
    candidates.push({ ...found.candidate, text: cut(found.candidate.text) });
    if (candidates.length === MAX_MEMORY_CANDIDATES) break;
  }
  return candidates;
};

/**
 * The offline model's answer to a memory extraction request, given the text of its last user message: the JSON
 * `{"candidates":[…]}` of {@link offlineMemoryCandidates}. A text not in the turn layout is read as the user's
 * message itself, with nothing remembered.
 */
export const offlineMemoryReply = (turn: string): string => {
  const parsed = parseExtractionTurn(turn);
  const candidates = parsed
    ? offlineMemoryCandidates(parsed.userMessage, parsed.recalled)
    : offlineMemoryCandidates(turn, []);
  return JSON.stringify({ candidates });
};
