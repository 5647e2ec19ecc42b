// Changing a Skill: saving a draft (the live version does not change: a published version is immutable, so any
// change becomes a new draft), publishing the draft (it becomes the version Agents load), or setting the active
// version back to an earlier published one (a rollback). A name change is checked against the place when it goes live.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { newId } from '#kernel';
import type { SkillBundle } from '../../bundle/skill-zip.js';
import { placementOf, SkillNames } from '../../skill-names.js';
import { SkillResolver } from '../../skill-resolver.js';
import type { SkillContent } from '../../skill.events.js';
import { SkillNotFoundError } from '../../skill.decider.js';
import { SkillReader } from '../../skill.reader.js';
import { SkillRepository } from '../../skill.repository.js';

export type SkillChange =
  | {
      readonly kind: 'draft';
      readonly manifest: { name?: string; description?: string; instructions?: string };
      readonly files?: SkillBundle['files'];
    }
  | { readonly kind: 'publish' }
  | { readonly kind: 'activate'; readonly versionId: string };

@Requires(SkillResolver, (skills, { skillId, principal }: ChangeSkill) =>
  skills.changeSkill(skillId, principal),
)
export class ChangeSkill extends Command<WriteResult> {
  constructor(
    readonly skillId: string,
    readonly change: SkillChange,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeSkill)
export class ChangeSkillHandler implements ICommandHandler<ChangeSkill> {
  constructor(
    private readonly names: SkillNames,
    private readonly reader: SkillReader,
    private readonly skills: SkillRepository,
  ) {}

  async execute({ skillId, change, context }: ChangeSkill): Promise<WriteResult> {
    const skill = await this.reader.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    const placement = placementOf(skill);
    let position: number;
    if (change.kind === 'draft') {
      const base = await this.reader.version(skill.draftVersionId ?? skill.activeVersionId ?? '');
      const instructions =
        change.manifest.instructions ?? (base ? ((await this.reader.text(base.instructions)) ?? '') : '');
      const content: SkillContent = {
        ...(await this.skills.content({
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
        await this.skills.decide(
          {
            type: 'SaveSkillDraft',
            skillId,
            versionId: newId('skv'),
            content: { ...content, files },
          },
          context,
        )
      ).position;
    } else {
      const goingLive =
        change.kind === 'publish'
          ? await this.reader.version(skill.draftVersionId ?? '')
          : await this.reader.version(change.versionId);
      // Another Skill's version is no version of this one: the decider answers 404 for it.
      if (goingLive && goingLive.skillId === skillId && goingLive.name !== skill.name)
        await this.names.requireFreeName(goingLive.name, placement, skill.id);
      position = (
        await this.skills.decide(
          change.kind === 'publish'
            ? { type: 'PublishSkillVersion', skillId }
            : { type: 'SetActiveSkillVersion', skillId, versionId: change.versionId },
          context,
        )
      ).position;
    }
    return { id: skillId, position };
  }
}
