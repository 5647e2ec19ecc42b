// The Skills context provider: the prompt carries only a manifest of the Agent's Skills (name, description and file
// names each, within its token share); the built-in `load_skill` tool loads a Skill's active version's instructions
// into the turn, and `read_skill_file` finds a reference file by name (or by search over the Skill's files) and reads
// it. Each version loaded is recorded for the answer's provenance.
import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '#event-store';
import type {
  ContextContribution,
  ContextItem,
  ContextProvider,
  ContextTool,
  ReplayedContribution,
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
import { availableSkillsAsOf } from './skills-as-of.js';

/** Characters of a reference file a read returns (the rest is cut, and the result says so). */
const FILE_CHARS = 20_000;

const argsOf = (args: unknown): Record<string, unknown> =>
  typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};

const words = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);

/**
 * A manifest line's tokens by its text (the same text always counts the same), the most recent MANIFEST_COUNTS of
 * them: every turn lists the same Skills, and counting their lines again cost ≈ 0.2 ms a turn.
 */
const manifestTokens = new Map<string, number>();
const MANIFEST_COUNTS = 1_024;

const lineTokens = (line: string): number => {
  let tokens = manifestTokens.get(line);
  if (tokens === undefined) {
    tokens = countTokens(line);
    if (manifestTokens.size >= MANIFEST_COUNTS) manifestTokens.delete(manifestTokens.keys().next().value!);
    manifestTokens.set(line, tokens);
  }
  return tokens;
};

/** Tokens counted per Skill beside its name and description (the manifest line's markup). */
const LINE_OVERHEAD = 8;

const manifestLine = (entry: AvailableSkill): string => `${entry.skill.name} ${entry.version.description}`;

@Injectable()
export class SkillsContextProvider implements ContextProvider {
  readonly name = 'skills';
  readonly share = 0.1;

  constructor(
    private readonly available: AvailableSkills,
    private readonly reader: SkillReader,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    const skills = await this.available.of(turn.agent);
    if (skills.length === 0) return null;
    const listed = this.fitting(skills, turn.tokenShare);
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

  /**
   * A replay offers the Skills the Agent had available when the question was asked (`recordedAt`: the versions
   * active then, folded from the log), as a live turn does: their manifest, `load_skill` and `read_skill_file`
   * (read-only: a load in a replay records nothing). The Skill versions the recorded turn loaded are re-sent as they
   * were, their instructions as `load_skill` returned them (read from the version's blob); a version whose content is
   * gone (the Skill deleted and purged) is named in `missing`.
   */
  async replay(
    turn: TurnContext,
    items: readonly ContextItem[],
    recordedAt: Date,
  ): Promise<ReplayedContribution | null> {
    const offered = this.fitting(
      (await availableSkillsAsOf(this.eventStore, turn.agent, recordedAt)).flatMap(({ skill, versions }) =>
        versions[0] ? [{ skill, version: versions[0] }] : [],
      ),
      turn.tokenShare,
    );
    const loaded = items.filter((item) => item.kind === 'skill');
    if (loaded.length === 0 && offered.length === 0) return null;
    const versions: { name: string; description: string; number: number; files: string[]; text: string }[] =
      [];
    const missing: string[] = [];
    for (const item of loaded) {
      const name = `skill:${item.id}@${item.version}`;
      const version = item.versionId
        ? await this.reader.version(item.versionId)
        : ((await this.reader.versions(item.id)).find((known) => known.number === item.version) ?? null);
      const text = version ? await this.reader.text(version.instructions) : null;
      if (!version || text === null) {
        missing.push(`${name} (its content is no longer stored: the Skill was deleted)`);
        continue;
      }
      const files = version.files.map((file) => file.path);
      versions.push({
        name: version.name,
        description: version.description,
        number: version.number,
        files,
        text,
      });
    }
    const listed = [
      ...offered.map(({ skill, version }) => ({
        name: skill.name,
        description: version.description,
        files: version.files.map((file) => file.path),
      })),
      ...versions
        .filter(({ name }) => !offered.some(({ skill }) => skill.name === name))
        .map(({ name, description, files }) => ({ name, description, files })),
    ];
    const instructions = versions.map(({ name, number, text, files }) =>
      formatLoadedSkill({ name, version: number, instructions: text, files }),
    );
    return {
      system: listed.length > 0 ? [formatSkillsManifest(listed), ...instructions].join('\n\n') : null,
      tools: offered.length > 0 ? [this.loadTool(offered), this.readTool(offered)] : [],
      missing,
    };
  }

  /**
   * The Skills whose manifest lines fit the provider's token share, in order. A token covers at least one UTF-8 byte,
   * so when the lines' bytes fit, all of them fit and none is counted: the first count loads the encoder's merge
   * table, which holds the event loop for ≈ 0.3 s, and most turns list a few short lines.
   */
  private fitting(skills: readonly AvailableSkill[], share: number): AvailableSkill[] {
    let bytes = 0;
    for (const entry of skills) bytes += Buffer.byteLength(manifestLine(entry), 'utf8') + LINE_OVERHEAD;
    if (bytes <= share) return [...skills];
    const listed: AvailableSkill[] = [];
    let used = 0;
    for (const entry of skills) {
      const tokens = lineTokens(manifestLine(entry)) + LINE_OVERHEAD;
      if (used + tokens > share) break;
      listed.push(entry);
      used += tokens;
    }
    return listed;
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
