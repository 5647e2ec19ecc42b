// Deleting a Skill for good (spec: "Deleting a Skill is permanent"): SkillDeleted in the log, its versions gone from
// the read models, and its blobs purged (those no other live Skill uses). Deleting an installed marketplace Skill is
// uninstalling it: its availability there ends, the marketplace entry stays.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { commandContext, type Caller } from '#identity';
import { placementOf, SkillAccess } from '../../skill-access.js';
import { SkillStore } from '../../skill-store.js';

export class DeleteSkill extends Command<void> {
  constructor(
    readonly skillId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(DeleteSkill)
export class DeleteSkillHandler implements ICommandHandler<DeleteSkill> {
  constructor(
    private readonly access: SkillAccess,
    private readonly store: SkillStore,
  ) {}

  async execute({ skillId, caller }: DeleteSkill): Promise<void> {
    const skill = await this.access.skill(skillId, caller);
    await this.access.canChange(placementOf(skill), caller);
    const versions = await this.store.versions(skillId);
    const result = await this.store.run(
      { type: 'DeleteSkill', skillId, reason: skill.source === 'MARKETPLACE' ? 'uninstalled' : 'requested' },
      commandContext(caller),
    );
    await this.store.settle(result.position);
    await this.store.purge(versions);
  }
}
