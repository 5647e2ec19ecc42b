// Creating a Skill (inline, or from an uploaded .md or .zip already read into a bundle): where the caller may change
// Skills, with a name free in that place; its first version is a draft, or published at once when asked. Its
// instructions and reference files go to the blob store, never into an event.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { commandContext, type Caller } from '#identity';
import { newId } from '#kernel';
import type { SkillBundle } from '../../bundle/skill-zip.js';
import { SkillAccess } from '../../skill-access.js';
import { toSkillDto } from '../../skill-dto.js';
import { SkillStore } from '../../skill-store.js';
import type { SkillDto } from '../../skills.schemas.js';

export class CreateSkill extends Command<z.output<typeof SkillDto>> {
  constructor(
    readonly target: { readonly spaceId?: string | undefined; readonly agentId?: string | undefined },
    readonly bundle: SkillBundle,
    readonly publish: boolean,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateSkill)
export class CreateSkillHandler implements ICommandHandler<CreateSkill> {
  constructor(
    private readonly access: SkillAccess,
    private readonly store: SkillStore,
  ) {}

  async execute({ target, bundle, publish, caller }: CreateSkill) {
    const placement = this.access.placement(target);
    await this.access.canChange(placement, caller);
    await this.access.requireFreeName(bundle.manifest.name, placement);
    const skillId = newId('skl');
    const result = await this.store.run(
      {
        type: 'CreateSkill',
        skillId,
        versionId: this.store.newVersionId(),
        placement,
        source: 'CUSTOM',
        provider: null,
        sourceId: null,
        creatorType: 'USER',
        creatorId: caller.userId,
        content: await this.store.content(bundle),
        publish,
      },
      commandContext(caller),
    );
    await this.store.settle(result.position);
    const skill = (await this.store.skill(skillId))!;
    return toSkillDto(skill, await this.store.versions(skillId));
  }
}
