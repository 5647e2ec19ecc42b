// Deleting a Skill for good (spec: "Deleting a Skill is permanent"): SkillDeleted in the log, its versions gone from
// the read models, and its blobs purged (those no other live Skill uses). Deleting an installed marketplace Skill is
// uninstalling it: its availability there ends, the marketplace entry stays.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { SkillNotFoundError } from '../../skill.decider.js';
import { SkillReader } from '../../skill.reader.js';
import { SkillResolver } from '../../skill-resolver.js';
import { SkillRepository } from '../../skill.repository.js';

@Requires(SkillResolver, (skills, { skillId, principal }: DeleteSkill) =>
  skills.changeSkill(skillId, principal),
)
export class DeleteSkill extends Command<WriteResult> {
  constructor(
    readonly skillId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteSkill)
export class DeleteSkillHandler implements ICommandHandler<DeleteSkill> {
  constructor(
    private readonly reader: SkillReader,
    private readonly skills: SkillRepository,
  ) {}

  async execute({ skillId, context }: DeleteSkill): Promise<WriteResult> {
    const skill = await this.reader.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    const position = await this.skills.delete(
      skillId,
      skill.source === 'MARKETPLACE' ? 'uninstalled' : 'requested',
      context,
    );
    return { id: skillId, position };
  }
}
