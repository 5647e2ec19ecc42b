// The Skills' part of the offline chat model: it reads the Skills manifest, the loaded Skill and the Skill file read
// back (`skills-prompt.ts`); it calls `load_skill` only when the user's message names or describes a Skill of the
// manifest (once a turn), then `read_skill_file` only when the message names one of the loaded Skill's files (once,
// as the call right after the load); after them it answers following the Skill (`offline-skills.ts`), after what
// the sources or memories said when they answered.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  lastTurnResult,
  lastUserMessage,
  textOf,
  turnCalls,
  type OfflineResponder,
} from '#model-providers/offline-kit';
import {
  LOAD_SKILL_TOOL,
  parseLoadedSkill,
  parseSkillFile,
  parseSkillsManifest,
  READ_SKILL_FILE_TOOL,
  type LoadedSkill,
  type PromptSkill,
  type SkillFile,
} from '../skills-prompt.js';
import {
  ALSO_FOLLOWING,
  followingSkill,
  OFFLINE_SKILL_PREFIX,
  skillFileNamed,
  skillToLoad,
} from './offline-skills.js';

type Messages = readonly ChatCompletionMessageParam[];

/** The Skills of the manifest in the system messages (the last one listing any), in its order. */
const turnSkills = (messages: Messages): PromptSkill[] => {
  for (const message of messages.toReversed()) {
    if (message.role !== 'system' && message.role !== 'developer') continue;
    const skills = parseSkillsManifest(textOf(message.content));
    if (skills.length > 0) return skills;
  }
  return [];
};

/** The Skill loaded in the current turn (the last `load_skill` result), if any. */
const turnLoadedSkill = (messages: Messages): LoadedSkill | undefined =>
  lastTurnResult(messages, parseLoadedSkill);

/** The file of `skill` read in the current turn (the last `read_skill_file` result of that Skill), if any. */
const turnSkillFile = (messages: Messages, skill: string): SkillFile | undefined =>
  lastTurnResult(messages, (text) => {
    const file = parseSkillFile(text);
    return file?.skill.toLowerCase() === skill.toLowerCase() ? file : undefined;
  });

/** The Skill the user's message names or describes, when the turn has not loaded one yet. */
const skillAsked = (messages: Messages): PromptSkill | undefined => {
  const user = lastUserMessage(messages);
  if (!user || turnCalls(messages).includes(LOAD_SKILL_TOOL) || turnLoadedSkill(messages)) return undefined;
  return skillToLoad(textOf(user.content), turnSkills(messages));
};

/** The file of the loaded Skill the user's message names, when the turn has read none yet. */
const skillFileAsked = (messages: Messages): { skill: string; file: string } | undefined => {
  const loaded = turnLoadedSkill(messages);
  const user = lastUserMessage(messages);
  if (!loaded || !user || turnCalls(messages).includes(READ_SKILL_FILE_TOOL)) return undefined;
  const file = skillFileNamed(textOf(user.content), loaded.files);
  return file === undefined ? undefined : { skill: loaded.name, file };
};

/** The Skill `load_skill` is called with: the one asked for, or (when the call is forced) the manifest's first. */
const skillToCall = (messages: Messages, said: string): string => {
  const skills = turnSkills(messages);
  return (skillToLoad(said, skills) ?? skills[0])?.name ?? said;
};

/**
 * The arguments of `read_skill_file`: the file the message names of the loaded Skill (else of the Skill asked for,
 * else of the manifest's first), or a search of that Skill's files for the message when it names none.
 */
const skillFileToRead = (
  messages: Messages,
  said: string,
): { skill: string; file: string } | { skill: string; query: string } => {
  const asked = skillFileAsked(messages);
  if (asked) return asked;
  const skills = turnSkills(messages);
  const skill: { name: string; files?: readonly string[] } | undefined =
    turnLoadedSkill(messages) ?? skillToLoad(said, skills) ?? skills[0];
  if (!skill) return { skill: '', query: said };
  const file = skillFileNamed(said, skill.files ?? []);
  return file === undefined ? { skill: skill.name, query: said } : { skill: skill.name, file };
};

export const skillsOfflineResponder: OfflineResponder = {
  name: 'skills',
  tools: [
    {
      name: LOAD_SKILL_TOOL,
      asked: (messages) => skillAsked(messages) !== undefined,
      args: (messages, said) => ({ name: skillToCall(messages, said) }),
    },
    {
      name: READ_SKILL_FILE_TOOL,
      followUp: (messages) => skillFileAsked(messages) !== undefined,
      args: skillFileToRead,
    },
  ],
  // After a Skill was loaded: the answer of the sources or memories (when they answer) followed by the Skill part,
  // or the Skill part alone. See followingSkill.
  reply: (messages, before) => {
    const loaded = turnLoadedSkill(messages);
    if (!loaded) return before();
    const part = followingSkill(loaded, turnSkillFile(messages, loaded.name));
    const known = before();
    return known?.found
      ? { text: `${known.text}${ALSO_FOLLOWING}${part}`, found: true }
      : { text: `${OFFLINE_SKILL_PREFIX}${part}`, found: true };
  },
};
