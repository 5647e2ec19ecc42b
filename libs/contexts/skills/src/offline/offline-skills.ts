// How the offline chat model uses Agent Skills without a language model: it loads the Skill the user's message
// names (its name as a word, hyphens included, any case) or, failing that, the one whose description shares the
// most content words with the message (at least two, stop words left out, scored like retrieved passages); it
// reads a reference file the message names; then it answers "following the skill" with the first sentence (or line)
// of its instructions and the first line of the file read. Same messages, same Skill, same answer.
import type { LoadedSkill, PromptSkill, SkillFile } from '../skills-prompt.js';
import { contentWords, sharedWords } from '#model-providers/offline-kit';

export const OFFLINE_SKILL_PREFIX =
  'Offline stand-in answer (no language model was called), following the skill ';
/** Joins what the sources or memories say and the Skill followed, when both answer. */
export const ALSO_FOLLOWING = ' Following the skill ';
/** Content words a message must share with a Skill's description to load it without naming it. */
const DESCRIPTION_MATCH = 2;

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` holds `word` as a word of its own: not inside a longer word, a hyphenated one included. */
export const namesWord = (text: string, word: string): boolean =>
  word.trim() !== '' &&
  new RegExp(`(?<![\\p{L}\\p{N}_-])${escape(word.trim())}(?![\\p{L}\\p{N}_-])`, 'iu').test(text);

/**
 * The Skill to load for a message: of the Skills it names, or else of those whose description shares at least two
 * content words with it, the one whose description shares the most with it (word scoring of grounded answers);
 * ties go to the manifest's order. Undefined when the message neither names nor describes any.
 */
export const skillToLoad = (message: string, skills: readonly PromptSkill[]): PromptSkill | undefined => {
  const words = contentWords(message);
  let best: { skill: PromptSkill; named: boolean; score: number } | undefined;
  for (const skill of skills) {
    const named = namesWord(message, skill.name);
    const shared = [...contentWords(skill.description)].filter((word) => words.has(word)).length;
    if (!named && shared < DESCRIPTION_MATCH) continue;
    const score = sharedWords(words, skill.description);
    if (!best || (named && !best.named) || (named === best.named && score > best.score))
      best = { skill, named, score };
  }
  return best?.skill;
};

/** The names a message may call a file by: its path, its file name, and that name without its extension. */
const namesOf = (path: string): string[] => {
  const file = path.split('/').at(-1) ?? path;
  const base = file.replace(/\.[^.]*$/, '');
  return [...new Set([path, file, base].filter((name) => name !== ''))];
};

/** The first of `files` the message names (by path, file name or base name), or undefined. */
export const skillFileNamed = (message: string, files: readonly string[]): string | undefined =>
  files.find((path) => namesOf(path).some((name) => namesWord(message, name)));

const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '');

/** Instructions without a leading front matter block (`---` … `---`). */
const withoutFrontMatter = (text: string): string =>
  text.replace(/^\s*---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/, '');

/**
 * The first sentence (or line) of a Skill's instructions: headings (`# …`) are skipped when anything else follows,
 * a leading front matter block always.
 */
export const firstInstruction = (instructions: string): string => {
  const all = lines(withoutFrontMatter(instructions));
  const line = all.find((candidate) => !candidate.startsWith('#')) ?? all[0]?.replace(/^#+\s*/, '');
  if (!line) return '(the skill has no instructions)';
  return line.split(/(?<=[.!?])\s+/u)[0]!;
};

/** The Skill part of an answer: `"<name>" (version n): <first instruction>[ Reference file <path>: <first line>]`. */
export const followingSkill = (skill: LoadedSkill, file?: SkillFile): string =>
  `"${skill.name}" (version ${skill.version}): ${firstInstruction(skill.instructions)}` +
  (file ? ` Reference file ${file.path}: ${lines(file.content)[0] ?? '(empty)'}` : '');
