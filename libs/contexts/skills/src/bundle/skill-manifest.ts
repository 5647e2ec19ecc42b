// A Skill's SKILL.md (the Agent Skills format): YAML frontmatter between two `---` lines, then the instructions.
// Parsing is strict and bounded: the failsafe YAML schema (every scalar a string), no tags, few aliases, known keys only.
import { lazyModule, ValidationError } from '#kernel';

// yaml is required at the first SKILL.md read or written, not at start-up (the default Skills are seeded without it).
const yaml = lazyModule<typeof import('yaml')>('yaml');

/** 1–64 characters: lowercase letters, digits and single hyphens, neither first nor last. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_INSTRUCTIONS_CHARS = 100_000;
export const MAX_LICENSE_CHARS = 500;
export const MAX_COMPATIBILITY_CHARS = 500;
export const MAX_ALLOWED_TOOLS = 100;
export const MAX_TOOL_CHARS = 256;
export const MAX_METADATA_ENTRIES = 50;
export const MAX_METADATA_KEY_CHARS = 128;
export const MAX_METADATA_VALUE_CHARS = 1024;
/** The frontmatter block (between the `---` lines), read before any YAML parsing. */
export const MAX_FRONTMATTER_CHARS = 64 * 1024;
/** A SKILL.md file, uploaded alone or inside a zip. */
export const MAX_SKILL_MD_BYTES = 1024 * 1024;
/** Alias expansions the YAML reader tolerates (billion-laughs documents exceed it at once). */
export const MAX_YAML_ALIASES = 10;

export interface SkillManifest {
  name: string;
  description: string;
  /** The body of SKILL.md after the frontmatter, trimmed. */
  instructions: string;
  license?: string;
  /** Environment requirements (`compatibility`, at most 500 characters). */
  compatibility?: string;
  /** `allowed-tools`: a YAML list, or one string of names separated by spaces or commas. */
  allowedTools?: string[];
  metadata?: Record<string, string>;
}

const FRONTMATTER_KEYS = new Set([
  'name',
  'description',
  'license',
  'allowed-tools',
  'metadata',
  'compatibility',
]);

/** A value shown inside an error message: quoted, and cut short. */
export function quoted(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

function checkName(name: unknown, param: string, label: string): string {
  if (typeof name !== 'string' || name.length === 0)
    throw new ValidationError('invalid_name', `${label} is required`, param);
  if (name.length > MAX_NAME_CHARS || !SKILL_NAME.test(name))
    throw new ValidationError(
      'invalid_name',
      `${label} must be 1–${MAX_NAME_CHARS} lowercase letters, digits and hyphens, ` +
        `without a leading, trailing or double hyphen (got ${quoted(name)})`,
      param,
    );
  return name;
}

function checkDescription(text: unknown, param: string, label: string): string {
  if (typeof text !== 'string')
    throw new ValidationError('invalid_description', `${label} is required`, param);
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_DESCRIPTION_CHARS)
    throw new ValidationError(
      'invalid_description',
      `${label} must be 1–${MAX_DESCRIPTION_CHARS} characters after trimming (got ${trimmed.length})`,
      param,
    );
  return trimmed;
}

/** The Skill's name, unchanged; 400 `invalid_name` unless it matches SKILL_NAME in 1–64 characters. */
export function validateSkillName(name: unknown, param = 'name'): string {
  return checkName(name, param, 'name');
}

/** The description, trimmed; 400 `invalid_description` unless 1–1,024 characters remain. */
export function validateDescription(text: unknown, param = 'description'): string {
  return checkDescription(text, param, 'description');
}

/** The instructions, trimmed; 400 `invalid_instructions` unless 1–100,000 characters remain. */
export function validateInstructions(text: unknown, param = 'instructions', label = 'instructions'): string {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (trimmed.length === 0)
    throw new ValidationError('invalid_instructions', `${label} must not be empty`, param);
  if (trimmed.length > MAX_INSTRUCTIONS_CHARS)
    throw new ValidationError(
      'invalid_instructions',
      `${label} must be at most ${MAX_INSTRUCTIONS_CHARS} characters (got ${trimmed.length})`,
      param,
    );
  return trimmed;
}

/** The text of a SKILL.md file: UTF-8 (a BOM is dropped), at most MAX_SKILL_MD_BYTES. */
export function decodeSkillMarkdown(bytes: Uint8Array, param: string): string {
  if (bytes.length > MAX_SKILL_MD_BYTES)
    throw new ValidationError(
      'skill_md_too_large',
      `SKILL.md must be at most ${MAX_SKILL_MD_BYTES} bytes (got ${bytes.length})`,
      param,
    );
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ValidationError('invalid_encoding', 'SKILL.md must be UTF-8 text', param);
  }
}

function frontmatterError(message: string, param: string): ValidationError {
  return new ValidationError('invalid_frontmatter', `SKILL.md frontmatter: ${message}`, param);
}

/** Splits `---\n<yaml>\n---\n<body>`; 400 `invalid_frontmatter` when the block is missing or too long. */
function splitFrontmatter(text: string, param: string): { yaml: string; body: string } {
  const opening = /^---[ \t]*\n/.exec(text);
  if (!opening)
    throw frontmatterError("the file must start with a YAML block between two '---' lines", param);
  const closing = /^---[ \t]*$/m;
  const rest = text.slice(opening[0].length);
  const end = closing.exec(rest);
  if (!end) throw frontmatterError("the YAML block has no closing '---' line", param);
  if (end.index > MAX_FRONTMATTER_CHARS)
    throw frontmatterError(`the YAML block must be at most ${MAX_FRONTMATTER_CHARS} characters`, param);
  return { yaml: rest.slice(0, end.index), body: rest.slice(end.index + end[0].length) };
}

/** Reads the YAML block as a string-keyed mapping of strings, lists and mappings (the failsafe schema). */
function readYaml(source: string, param: string): Record<string, unknown> {
  const doc = yaml().parseDocument(source, {
    schema: 'failsafe',
    customTags: [],
    merge: false,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
    version: '1.2',
  });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) throw frontmatterError(`invalid YAML (${problem.message.split('\n')[0]})`, param);
  let refusal: string | undefined;
  yaml().visit(doc, {
    Node(_key, node) {
      if (!yaml().isAlias(node) && node.tag) {
        refusal = `YAML tags are not allowed (${quoted(node.tag)})`;
        return yaml().visit.BREAK;
      }
      return undefined;
    },
    Pair(_key, pair) {
      if (!yaml().isScalar(pair.key)) {
        refusal = 'mapping keys must be plain strings';
        return yaml().visit.BREAK;
      }
      return undefined;
    },
  });
  if (refusal) throw frontmatterError(refusal, param);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    throw frontmatterError(
      `the YAML could not be read (${error instanceof Error ? error.message : String(error)})`,
      param,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw frontmatterError('the YAML block must be a mapping of keys to values', param);
  return value as Record<string, unknown>;
}

function optionalText(value: unknown, key: string, max: number, code: string, param: string): string {
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || text.length === 0 || text.length > max)
    throw new ValidationError(
      code,
      `SKILL.md frontmatter '${key}' must be a text of 1–${max} characters when present`,
      param,
    );
  return text;
}

/** Splits `Read Grep, Bash(git log:*)` on spaces and commas that are not inside parentheses. */
function splitTools(text: string): string[] {
  const tools: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current) tools.push(current);
      current = '';
    } else current += char;
  }
  if (current) tools.push(current);
  return tools;
}

function allowedTools(value: unknown, param: string): string[] {
  const fail = (rule: string) =>
    new ValidationError('invalid_allowed_tools', `SKILL.md frontmatter 'allowed-tools' ${rule}`, param);
  const tools = typeof value === 'string' ? splitTools(value) : value;
  if (!Array.isArray(tools) || tools.length === 0)
    throw fail('must be a non-empty list of tool names, or one string of names separated by spaces');
  if (tools.length > MAX_ALLOWED_TOOLS) throw fail(`must name at most ${MAX_ALLOWED_TOOLS} tools`);
  return tools.map((tool: unknown) => {
    const name = typeof tool === 'string' ? tool.trim() : '';
    if (name.length === 0 || name.length > MAX_TOOL_CHARS)
      throw fail(`must hold tool names of 1–${MAX_TOOL_CHARS} characters`);
    return name;
  });
}

function metadata(value: unknown, param: string): Record<string, string> {
  const fail = (rule: string) =>
    new ValidationError('invalid_metadata', `SKILL.md frontmatter 'metadata' ${rule}`, param);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw fail('must be a mapping of names to texts');
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_ENTRIES) throw fail(`must have at most ${MAX_METADATA_ENTRIES} entries`);
  for (const [key, text] of entries) {
    if (key.length === 0 || key.length > MAX_METADATA_KEY_CHARS)
      throw fail(`keys must be 1–${MAX_METADATA_KEY_CHARS} characters (got ${quoted(key)})`);
    if (typeof text !== 'string' || text.length > MAX_METADATA_VALUE_CHARS)
      throw fail(`${quoted(key)} must be a text of at most ${MAX_METADATA_VALUE_CHARS} characters`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * Reads a SKILL.md: `name`, `description`, `license`, `compatibility`, `allowed-tools` and `metadata` in the
 * frontmatter (any other key is a 400 `unknown_frontmatter_key` naming it), the body as the instructions.
 * Every refusal is a ValidationError with `param`.
 */
export function parseSkillMarkdown(text: string, param: string): SkillManifest {
  const normalized = (text.startsWith('\uFEFF') ? text.slice(1) : text).replace(/\r\n?/g, '\n');
  const { yaml, body } = splitFrontmatter(normalized, param);
  const front = readYaml(yaml, param);
  for (const key of Object.keys(front))
    if (!FRONTMATTER_KEYS.has(key))
      throw new ValidationError(
        'unknown_frontmatter_key',
        `SKILL.md frontmatter key ${quoted(key)} is not allowed ` +
          `(allowed: ${[...FRONTMATTER_KEYS].join(', ')})`,
        param,
      );
  const manifest: SkillManifest = {
    name: checkName(front.name, param, "SKILL.md frontmatter 'name'"),
    description: checkDescription(front.description, param, "SKILL.md frontmatter 'description'"),
    instructions: validateInstructions(body, param, 'SKILL.md instructions (the text after the frontmatter)'),
  };
  if (Object.hasOwn(front, 'license'))
    manifest.license = optionalText(front.license, 'license', MAX_LICENSE_CHARS, 'invalid_license', param);
  if (Object.hasOwn(front, 'compatibility'))
    manifest.compatibility = optionalText(
      front.compatibility,
      'compatibility',
      MAX_COMPATIBILITY_CHARS,
      'invalid_compatibility',
      param,
    );
  if (Object.hasOwn(front, 'allowed-tools'))
    manifest.allowedTools = allowedTools(front['allowed-tools'], param);
  if (Object.hasOwn(front, 'metadata')) manifest.metadata = metadata(front.metadata, param);
  return manifest;
}

/** The SKILL.md of a manifest (parseSkillMarkdown reads it back to an equal manifest). */
export function renderSkillMarkdown(manifest: SkillManifest): string {
  const front: Record<string, unknown> = { name: manifest.name, description: manifest.description };
  if (manifest.license !== undefined) front.license = manifest.license;
  if (manifest.compatibility !== undefined) front.compatibility = manifest.compatibility;
  if (manifest.allowedTools?.length) front['allowed-tools'] = manifest.allowedTools;
  if (manifest.metadata && Object.keys(manifest.metadata).length > 0) front.metadata = manifest.metadata;
  return `---\n${yaml().stringify(front, { lineWidth: 0 })}---\n\n${manifest.instructions.trim()}\n`;
}
