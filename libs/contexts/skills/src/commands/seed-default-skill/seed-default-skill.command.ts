// Seeding one DEFAULT Skill (sent by SkillsSeeder on start): created and published under an id derived from its
// name, only when its stream does not exist yet, so a restart appends nothing. The platform may change DEFAULT
// Skills (the policy's `skill.change` on the global place).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type PlatformPrincipal } from '#access';
import type { DefaultSkill } from '../../default-skills.js';
import { SkillResolver } from '../../skill-resolver.js';
import { skillDecider } from '../../skill.decider.js';
import { skillStreamId } from '../../skill.events.js';
import { SkillRepository } from '../../skill.repository.js';

export const defaultSkillId = (name: string): string => `skl_default_${name.replaceAll('-', '_')}`;

@Requires(SkillResolver, (skills, { principal }: SeedDefaultSkill) =>
  skills.change({ kind: 'global' }, principal),
)
export class SeedDefaultSkill extends Command<WriteResult> {
  constructor(
    readonly skill: DefaultSkill,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(SeedDefaultSkill)
export class SeedDefaultSkillHandler implements ICommandHandler<SeedDefaultSkill> {
  constructor(
    private readonly skills: SkillRepository,
    private readonly aggregates: AggregateRepository,
  ) {}

  async execute({ skill, context }: SeedDefaultSkill): Promise<WriteResult> {
    const skillId = defaultSkillId(skill.name);
    // Seeded before: nothing to do (its blobs are not stored again either).
    if ((await this.aggregates.load(skillStreamId(skillId), skillDecider)).state.status !== 'absent')
      return { id: skillId, position: 0 };
    const content = await this.skills.content({
      manifest: skill,
      files: skill.files.map((file) => ({ path: file.path, bytes: Buffer.from(file.content, 'utf8') })),
    });
    const { position } = await this.skills.decide(
      {
        type: 'CreateSkill',
        skillId,
        versionId: `skv_default_${skill.name.replaceAll('-', '_')}_1`,
        placement: { kind: 'global' },
        source: 'DEFAULT',
        provider: 'platform',
        sourceId: skill.name,
        creatorType: 'PLATFORM',
        creatorId: null,
        content,
        publish: true,
      },
      context,
    );
    return { id: skillId, position };
  }
}
