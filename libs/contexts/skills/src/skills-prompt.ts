// The text formats of Agent Skills in a prompt, shared by the conversation runtime (which writes them: the manifest
// in the Agent's system prompt, the results of the `load_skill` and `read_skill_file` tools) and the Skills' offline
// responder (`offline/skills-responder.ts`, which reads them back to load and follow a Skill without a language model).
//
//   Skills available to you (load one with load_skill before following it):
//   - expense-report: Files an expense report from receipts. (files: policy.md, rates.csv)
//   - release-notes: Writes release notes from merged pull requests.
//
//   Skill loaded: expense-report (version 3)
//   <the instructions, verbatim>
//
//   Reference files: policy.md, rates.csv
//
//   Skill file: expense-report/policy.md
//   <the file's content, verbatim>
//
// A manifest line holds one Skill: its name up to the first `: `, its description on one line, its files (if any)
// in a trailing ` (files: …)`. Names are slugs (no `: `, no `/`), file paths hold no `, `; a description saying
// `(files:` itself is written `(files -` so it never passes for the file list.

/** The built-in tool that loads a Skill's active version into the turn (arguments `{ name: string }`). */
export const LOAD_SKILL_TOOL = 'load_skill';
/** The built-in tool that reads a Skill's reference file (arguments `{ skill: string, file?: string, query?: string }`). */
export const READ_SKILL_FILE_TOOL = 'read_skill_file';
export const SKILLS_HEADER = 'Skills available to you (load one with load_skill before following it):';
export const LOADED_SKILL_HEADER = 'Skill loaded:';
export const REFERENCE_FILES_LABEL = 'Reference files:';
export const SKILL_FILE_HEADER = 'Skill file:';
/** The file list of a loaded Skill without files whose instructions end like a file list (never written otherwise). */
const NO_FILES = '(none)';

/** A Skill as the manifest shows it. */
export interface PromptSkill {
  name: string;
  description: string;
  /** The Skill's reference files (paths inside the Skill); absent or empty when it has none. */
  files?: readonly string[];
}

/** A Skill's version loaded into a turn: the result of `load_skill`. */
export interface LoadedSkill {
  name: string;
  version: number;
  instructions: string;
  files: readonly string[];
}

/** A Skill's reference file read into a turn: the result of `read_skill_file`. */
export interface SkillFile {
  skill: string;
  path: string;
  content: string;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const FILES_SUFFIX = /^(.*?) ?\(files: (.*)\)$/;
const fileList = (files: readonly string[]): string => files.map(oneLine).join(', ');
const splitFiles = (list: string): string[] => (list.trim() === '' ? [] : list.split(', '));

const manifestLine = (skill: PromptSkill): string => {
  const description = oneLine(skill.description).replaceAll('(files:', '(files -');
  const files = skill.files && skill.files.length > 0 ? ` (files: ${fileList(skill.files)})` : '';
  return `- ${oneLine(skill.name)}: ${description}${files}`.trimEnd();
};

/** The manifest of an Agent's Skills for its system prompt: the header, then one line a Skill. */
export const formatSkillsManifest = (skills: readonly PromptSkill[]): string =>
  [SKILLS_HEADER, ...skills.map(manifestLine)].join('\n');

const MANIFEST_LINE = /^- (.+?):(?: (.*))?$/;

/**
 * The Skills of a manifest made by {@link formatSkillsManifest}, found anywhere in a text (the manifest may follow
 * the Agent's instructions): the lines right after the header up to the first that is not a Skill. None without
 * the header. A Skill without files is read without `files`.
 */
export const parseSkillsManifest = (text: string): PromptSkill[] => {
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((line) => line.trim() === SKILLS_HEADER);
  if (header < 0) return [];
  const skills: PromptSkill[] = [];
  for (const line of lines.slice(header + 1)) {
    const match = MANIFEST_LINE.exec(line.trimEnd());
    if (!match) break;
    const rest = match[2] ?? '';
    const files = FILES_SUFFIX.exec(rest);
    skills.push(
      files
        ? { name: match[1]!, description: files[1]!, files: splitFiles(files[2]!) }
        : { name: match[1]!, description: rest },
    );
  }
  return skills;
};

const LOADED_LINE = /^Skill loaded: (.+) \(version (\d+)\)$/;

/**
 * The result of `load_skill`: the header line `Skill loaded: <name> (version n)`, the instructions verbatim (trimmed),
 * then, after a blank line, `Reference files: a.md, b.csv` when the Skill has files.
 */
export const formatLoadedSkill = (skill: {
  readonly name: string;
  readonly version: number;
  readonly instructions: string;
  readonly files: readonly string[];
}): string => {
  const instructions = skill.instructions.trim();
  const lastLine = instructions.split(/\r?\n/).at(-1) ?? '';
  const files =
    skill.files.length > 0
      ? fileList(skill.files)
      : lastLine.startsWith(REFERENCE_FILES_LABEL)
        ? NO_FILES
        : undefined;
  return (
    `${LOADED_SKILL_HEADER} ${oneLine(skill.name)} (version ${skill.version})\n${instructions}` +
    (files === undefined ? '' : `\n\n${REFERENCE_FILES_LABEL} ${files}`)
  );
};

/** The Skill of a text made by {@link formatLoadedSkill}, or undefined when it is not one. */
export const parseLoadedSkill = (text: string): LoadedSkill | undefined => {
  const lines = text.trim().split(/\r?\n/);
  const header = LOADED_LINE.exec(lines[0]!.trim());
  if (!header) return undefined;
  let body = lines.slice(1);
  let files: string[] = [];
  const last = body.at(-1) ?? '';
  if (body.length >= 2 && body.at(-2)!.trim() === '' && last.startsWith(`${REFERENCE_FILES_LABEL} `)) {
    const list = last.slice(REFERENCE_FILES_LABEL.length + 1).trim();
    files = list === NO_FILES ? [] : splitFiles(list);
    body = body.slice(0, -2);
  }
  return { name: header[1]!, version: Number(header[2]), instructions: body.join('\n').trim(), files };
};

/** The result of `read_skill_file`: the header line `Skill file: <skill>/<path>`, then the content verbatim. */
export const formatSkillFile = (file: {
  readonly skill: string;
  readonly path: string;
  readonly content: string;
}): string => `${SKILL_FILE_HEADER} ${oneLine(file.skill)}/${oneLine(file.path)}\n${file.content}`;

/** The file of a text made by {@link formatSkillFile}, or undefined when it is not one. */
export const parseSkillFile = (text: string): SkillFile | undefined => {
  const newline = text.indexOf('\n');
  const first = (newline < 0 ? text : text.slice(0, newline)).replace(/\r$/, '');
  const match = /^Skill file: ([^/]+)\/(.+)$/.exec(first);
  if (!match) return undefined;
  return { skill: match[1]!, path: match[2]!, content: newline < 0 ? '' : text.slice(newline + 1) };
};
