// Changing a Skill: saving a draft (the live version does not change: a published version is immutable, so any
// change becomes a new draft), publishing the draft (it becomes the version Agents load), or setting the active
// version back to an earlier published one (a rollback). A name change is checked against the place when it goes live.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { commandContext, type Caller } from '#identity';
import type { SkillBundle } from '../../bundle/skill-zip.js';
import { placementOf, SkillAccess } from '../../skill-access.js';
import { toSkillDto } from '../../skill-dto.js';
import type { SkillContent } from '../../skill.events.js';
import { SkillStore } from '../../skill-store.js';
import type { SkillDto } from '../../skills.schemas.js';

export type SkillChange =
  | {
      readonly kind: 'draft';
      readonly manifest: { name?: string; description?: string; instructions?: string };
      readonly files?: SkillBundle['files'];
    }
  | { readonly kind: 'publish' }
  | { readonly kind: 'activate'; readonly versionId: string };

export class ChangeSkill extends Command<z.output<typeof SkillDto>> {
  constructor(
    readonly skillId: string,
    readonly change: SkillChange,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ChangeSkill)
export class ChangeSkillHandler implements ICommandHandler<ChangeSkill> {
  constructor(
    private readonly access: SkillAccess,
    private readonly store: SkillStore,
  ) {}

  async execute({ skillId, change, caller }: ChangeSkill) {
    const skill = await this.access.skill(skillId, caller);
    const placement = placementOf(skill);
    await this.access.canChange(placement, caller);
    const context = commandContext(caller);
    let position: number;
    if (change.kind === 'draft') {
      const base = await this.store.version(skill.draftVersionId ?? skill.activeVersionId ?? '');
      const instructions =
        change.manifest.instructions ?? (base ? ((await this.store.text(base.instructions)) ?? '') : '');
      const content: SkillContent = {
        ...(await this.store.content({
          manifest: {
            name: change.manifest.name ?? base?.name ?? skill.name,
            description: change.manifest.description ?? base?.description ?? skill.description,
            instructions,
          },
          files: change.files ?? [],
        })),
      };
      const files = change.files ? content.files : (base?.files ?? []);
      position = (
        await this.store.run(
          {
            type: 'SaveSkillDraft',
            skillId,
            versionId: this.store.newVersionId(),
            content: { ...content, files },
          },
          context,
        )
      ).position;
    } else {
      const goingLive =
        change.kind === 'publish'
          ? await this.store.version(skill.draftVersionId ?? '')
          : await this.store.version(change.versionId);
      // Another Skill's version is no version of this one: the decider answers 404 for it.
      if (goingLive && goingLive.skillId === skillId && goingLive.name !== skill.name)
        await this.access.requireFreeName(goingLive.name, placement, skill.id);
      position = (
        await this.store.run(
          change.kind === 'publish'
            ? { type: 'PublishSkillVersion', skillId }
            : { type: 'SetActiveSkillVersion', skillId, versionId: change.versionId },
          context,
        )
      ).position;
    }
    await this.store.settle(position);
    return toSkillDto((await this.store.skill(skillId))!, await this.store.versions(skillId));
  }
}
