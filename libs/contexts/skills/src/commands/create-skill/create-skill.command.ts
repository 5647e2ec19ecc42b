// Creating a Skill (inline, or from an uploaded .md or .zip already read into a bundle): where the caller may change
// Skills, with a name free in that place; its first version is a draft, or published at once when asked. Its
// instructions and reference files go to the blob store, never into an event.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { newId } from '#kernel';
import type { SkillBundle } from '../../bundle/skill-zip.js';
import { placementFrom, SkillNames, userOf } from '../../skill-names.js';
import { SkillResolver } from '../../skill-resolver.js';
import { SkillRepository } from '../../skill.repository.js';

/** Answers the new Skill's id. */
@Requires(SkillResolver, (skills, { target, principal }: CreateSkill) =>
  skills.change(placementFrom(target), principal),
)
export class CreateSkill extends Command<WriteResult> {
  constructor(
    readonly target: { readonly spaceId?: string | undefined; readonly agentId?: string | undefined },
    readonly bundle: SkillBundle,
    readonly publish: boolean,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreateSkill)
export class CreateSkillHandler implements ICommandHandler<CreateSkill> {
  constructor(
    private readonly names: SkillNames,
    private readonly skills: SkillRepository,
  ) {}

  async execute({ target, bundle, publish, context, principal }: CreateSkill): Promise<WriteResult> {
    const placement = placementFrom(target);
    await this.names.requireFreeName(bundle.manifest.name, placement);
    const skillId = newId('skl');
    const { position } = await this.skills.decide(
      {
        type: 'CreateSkill',
        skillId,
        versionId: newId('skv'),
        placement,
        source: 'CUSTOM',
        provider: null,
        sourceId: null,
        creatorType: 'USER',
        creatorId: userOf(principal),
        content: await this.skills.content(bundle),
        publish,
      },
      context,
    );
    return { id: skillId, position };
  }
}
