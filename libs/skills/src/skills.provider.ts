// The Skills context provider: the prompt carries only a manifest of the Agent's Skills (name, description and file
// names each, within its token share); the built-in `load_skill` tool loads a Skill's active version's instructions
// into the turn, and `read_skill_file` finds a reference file by name (or by search over the Skill's files) and reads
// it. Each version loaded is recorded for the answer's provenance.
import { Injectable } from '@nestjs/common';
import type {
  ContextContribution,
  ContextProvider,
  ContextTool,
  ToolOutcome,
  TurnContext,
} from '#conversations';
import {
  formatLoadedSkill,
  formatSkillFile,
  formatSkillsManifest,
  LOAD_SKILL_TOOL,
  READ_SKILL_FILE_TOOL,
} from './skills-prompt.js';
import { countTokens } from '#tokenizer';
import { AvailableSkills, type AvailableSkill } from './available-skills.js';
import { SkillReader } from './skill.reader.js';

/** Characters of a reference file a read returns (the rest is cut, and the result says so). */
const FILE_CHARS = 20_000;

const argsOf = (args: unknown): Record<string, unknown> =>
  typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};

const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);

@Injectable()
export class SkillsContextProvider implements ContextProvider {
  readonly name = 'skills';
  readonly share = 0.1;

  constructor(
    private readonly available: AvailableSkills,
    private readonly reader: SkillReader,
  ) {}

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    const skills = await this.available.of(turn.agent);
    if (skills.length === 0) return null;
    const listed: AvailableSkill[] = [];
    let used = 0;
    for (const entry of skills) {
      const tokens = countTokens(`${entry.skill.name} ${entry.version.description}`) + 8;
      if (used + tokens > turn.tokenShare) break;
      listed.push(entry);
      used += tokens;
    }
    if (listed.length === 0) return null;
    return {
      system: formatSkillsManifest(
        listed.map(({ skill, version }) => ({
          name: skill.name,
          description: version.description,
          files: version.files.map((file) => file.path),
        })),
      ),
      tools: [this.loadTool(listed), this.readTool(listed)],
    };
  }

  private loadTool(skills: readonly AvailableSkill[]): ContextTool {
    return {
      definition: {
        type: 'function',
        function: {
          name: LOAD_SKILL_TOOL,
          description: 'Load one of your Skills by name: returns its instructions, which you then follow.',
          parameters: {
            type: 'object',
            properties: { name: { type: 'string', description: 'The Skill name, as listed' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
      run: async (args, turn): Promise<ToolOutcome> => {
        const name = String(argsOf(args).name ?? '');
        const entry = skills.find(({ skill }) => skill.name === name);
        if (!entry) return { content: `There is no Skill named '${name}'.`, ok: false, sources: [] };
        const instructions = await this.reader.text(entry.version.instructions);
        if (instructions === null)
          return { content: `The Skill '${name}' could not be read.`, ok: false, sources: [] };
        turn.recordItem({
          kind: 'skill',
          id: entry.skill.id,
          version: entry.version.number,
          versionId: entry.version.id,
        });
        return {
          content: formatLoadedSkill({
            name,
            version: entry.version.number,
            instructions,
            files: entry.version.files.map((file) => file.path),
          }),
          ok: true,
          sources: [],
        };
      },
    };
  }

  private readTool(skills: readonly AvailableSkill[]): ContextTool {
    return {
      definition: {
        type: 'function',
        function: {
          name: READ_SKILL_FILE_TOOL,
          description:
            'Read a reference file of a Skill, by its path, or the best match for a query over its files.',
          parameters: {
            type: 'object',
            properties: {
              skill: { type: 'string', description: 'The Skill name' },
              file: { type: 'string', description: 'The file path, as listed' },
              query: { type: 'string', description: 'What to look for, when the path is not known' },
            },
            required: ['skill'],
            additionalProperties: false,
          },
        },
      },
      run: async (args): Promise<ToolOutcome> => {
        const { skill: name, file, query } = argsOf(args);
        const entry = skills.find(({ skill }) => skill.name === String(name ?? ''));
        if (!entry) return { content: `There is no Skill named '${String(name)}'.`, ok: false, sources: [] };
        const files = entry.version.files;
        let chosen =
          typeof file === 'string'
            ? files.find((candidate) => candidate.path === file || candidate.path.split('/').at(-1) === file)
            : undefined;
        if (!chosen && typeof query === 'string' && files.length > 0) {
          const asked = words(query);
          let best = -1;
          for (const candidate of files) {
            const text = (await this.reader.text(candidate)) ?? '';
            const score = [...words(`${candidate.path} ${text.slice(0, FILE_CHARS)}`)].filter((word) =>
              asked.has(word),
            ).length;
            if (score > best) [chosen, best] = [candidate, score];
          }
        }
        if (!chosen)
          return {
            content: `No such file in '${entry.skill.name}'. Its files: ${files.map((f) => f.path).join(', ') || '(none)'}.`,
            ok: false,
            sources: [],
          };
        const content = (await this.reader.text(chosen)) ?? '';
        return {
          content: formatSkillFile({
            skill: entry.skill.name,
            path: chosen.path,
            content:
              content.length > FILE_CHARS
                ? `${content.slice(0, FILE_CHARS)}\n…(cut at ${FILE_CHARS} characters)`
                : content,
          }),
          ok: true,
          sources: [],
        };
      },
    };
  }
}
