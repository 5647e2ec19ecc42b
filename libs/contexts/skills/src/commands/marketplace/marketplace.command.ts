// The Skills marketplace: admins list a Skill's published version on it, archive entries (never delete them, so
// installed copies keep their provenance) and restore archived ones; installing scopes a listed Skill to a Space or an Agent as a new Skill
// (source MARKETPLACE, provider and sourceId naming the origin) sharing the listed version's blobs.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { newId } from '#kernel';
import { placementFrom, SkillNames, userOf } from '../../skill-names.js';
import { SkillResolver } from '../../skill-resolver.js';
import { SkillReader } from '../../skill.reader.js';
import { marketplaceListing, skillDecider, SkillNotFoundError } from '../../skill.decider.js';
import { skillStreamId } from '../../skill.events.js';
import { SkillRepository } from '../../skill.repository.js';

export const MARKETPLACE_PROVIDER = 'platform-marketplace';

/** Answers the Skill changed, or (install) the Skill installed. */
@Requires(SkillResolver, (skills, { skillId, action, principal }: ManageMarketplace) =>
  action.kind === 'install'
    ? skills.change(placementFrom(action.target), principal)
    : skills.curate(skillId, 'only admins list, archive and restore marketplace Skills', principal),
)
export class ManageMarketplace extends Command<WriteResult> {
  constructor(
    readonly skillId: string,
    readonly action:
      | { readonly kind: 'list' }
      | { readonly kind: 'archive' }
      | { readonly kind: 'restore' }
      | {
          readonly kind: 'install';
          readonly target: { spaceId?: string | undefined; agentId?: string | undefined };
        },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ManageMarketplace)
export class ManageMarketplaceHandler implements ICommandHandler<ManageMarketplace> {
  constructor(
    private readonly names: SkillNames,
    private readonly reader: SkillReader,
    private readonly skills: SkillRepository,
    private readonly aggregates: AggregateRepository,
  ) {}

  async execute({ skillId, action, context, principal }: ManageMarketplace): Promise<WriteResult> {
    if (action.kind !== 'install') {
      if (!(await this.reader.skill(skillId))) throw new SkillNotFoundError(skillId);
      const { position } = await this.skills.decide(
        action.kind === 'list'
          ? { type: 'ListOnMarketplace', skillId, versionId: null }
          : action.kind === 'archive'
            ? { type: 'ArchiveFromMarketplace', skillId }
            : { type: 'RestoreToMarketplace', skillId },
        context,
      );
      return { id: skillId, position };
    }
    const placement = placementFrom(action.target);
    // The installation copies exactly the listed version: read from the listed Skill's own stream.
    const { state } = await this.aggregates.load(skillStreamId(skillId), skillDecider);
    const listing = marketplaceListing(state, skillId);
    await this.names.requireFreeName(listing.content.name, placement);
    const installedId = newId('skl');
    const { position } = await this.skills.decide(
      {
        type: 'InstallSkill',
        skillId: installedId,
        versionId: newId('skv'),
        placement,
        provider: MARKETPLACE_PROVIDER,
        creatorType: 'USER',
        creatorId: userOf(principal),
        listing,
      },
      context,
    );
    return { id: installedId, position };
  }
}
