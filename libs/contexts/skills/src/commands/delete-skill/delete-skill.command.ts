// Deleting a Skill for good (spec: "Deleting a Skill is permanent"): SkillDeleted in the log, its versions gone from
// the read models, and its blobs purged (those no other live Skill uses). Deleting an installed marketplace Skill is
// uninstalling it: its availability there ends, the marketplace entry stays.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { placementOf, SkillAccess } from '../../skill-access.js';
import { SkillRepository } from '../../skill.repository.js';

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
    private readonly access: SkillAccess,
    private readonly skills: SkillRepository,
  ) {}

  async execute({ skillId, context, principal }: DeleteSkill): Promise<WriteResult> {
    const skill = await this.access.skill(skillId, principal);
    await this.access.canChange(placementOf(skill), principal);
    const position = await this.skills.delete(
      skillId,
      skill.source === 'MARKETPLACE' ? 'uninstalled' : 'requested',
      context,
    );
    return { id: skillId, position };
  }
}
