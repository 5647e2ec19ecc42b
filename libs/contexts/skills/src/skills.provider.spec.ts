// Which Skills a turn's manifest lists within the provider's token share: every one when their lines fit, else the
// leading ones whose counted lines fit.
import { countTokens } from '#tokenizer';
import type { EventStore } from '#event-store';
import type { TurnContext } from '#conversations';
import type { AvailableSkill, AvailableSkills } from './available-skills.js';
import { parseSkillsManifest } from './skills-prompt.js';
import type { SkillReader } from './skill.reader.js';
import { SkillsContextProvider } from './skills.provider.js';

const skill = (name: string, description: string): AvailableSkill =>
  ({
    skill: { id: `skl_${name}`, name },
    version: { id: `skv_${name}`, description, files: [] },
  }) as unknown as AvailableSkill;

const listed = async (skills: readonly AvailableSkill[], tokenShare: number): Promise<string[]> => {
  const available = { of: async () => skills } as unknown as AvailableSkills;
  const provider = new SkillsContextProvider(
    available,
    {} as unknown as SkillReader,
    {} as unknown as EventStore,
  );
  const turn = { agent: { id: 'agt_1', spaceId: null }, tokenShare } as unknown as TurnContext;
  const contribution = await provider.contribute(turn);
  return contribution ? parseSkillsManifest(contribution.system ?? '').map((entry) => entry.name) : [];
};

describe('SkillsContextProvider manifest within the token share', () => {
  const skills = [
    skill('expenses', 'Files an expense report from receipts'),
    skill('notes', 'Summarises meeting notes into action items'),
    skill('haiku', 'Writes haiku about anything at all'),
  ];
  const tokens = skills.map((entry) => countTokens(`${entry.skill.name} ${entry.version.description}`) + 8);

  it('lists every Skill when their lines fit the share', async () => {
    expect(await listed(skills, 10_000)).toEqual(['expenses', 'notes', 'haiku']);
  });

  it('lists the leading Skills whose counted lines fit a share their bytes exceed', async () => {
    const share = tokens[0]! + tokens[1]!;
    expect(await listed(skills, share)).toEqual(['expenses', 'notes']);
    expect(await listed(skills, share - 1)).toEqual(['expenses']);
  });

  it('lists none when the first line does not fit', async () => {
    expect(await listed(skills, tokens[0]! - 1)).toEqual([]);
  });
});
