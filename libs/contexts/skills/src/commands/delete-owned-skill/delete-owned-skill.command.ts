// The platform deletes a Skill because the Space or Agent it was placed on was deleted (sent by
// SkillOwnerDeletionProcess); a Skill already gone is a no-op (the decider's `owner_deleted`). Its blobs are purged
// as for a requested deletion. The cause is a fact of the log: nothing to authorize.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { AskedAtRoute, type PlatformPrincipal } from '#access';
import { SkillRepository } from '../../skill.repository.js';

@AskedAtRoute('no route sends it: only SkillOwnerDeletionProcess, whose principal is the platform (typed so)')
export class DeleteOwnedSkill extends Command<WriteResult> {
  constructor(
    readonly skillId: string,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(DeleteOwnedSkill)
export class DeleteOwnedSkillHandler implements ICommandHandler<DeleteOwnedSkill> {
  constructor(private readonly skills: SkillRepository) {}

  async execute({ skillId, context }: DeleteOwnedSkill): Promise<WriteResult> {
    return { id: skillId, position: await this.skills.delete(skillId, 'owner_deleted', context) };
  }
}
