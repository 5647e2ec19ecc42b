// The Skills marketplace: admins list a Skill's published version on it, archive entries (never delete them, so
// installed copies keep their provenance) and restore archived ones; installing scopes a listed Skill to a Space or an Agent as a new Skill
// (source MARKETPLACE, provider and sourceId naming the origin) sharing the listed version's blobs.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { authorize, commandContext, type Caller } from '#identity';
import { ForbiddenError, newId } from '#kernel';
import { SkillAccess } from '../../skill-access.js';
import { marketplaceListing, skillDecider } from '../../skill.decider.js';
import { toSkillDto } from '../../skill-dto.js';
import { skillStreamId } from '../../skill.events.js';
import { SkillStore } from '../../skill-store.js';
import type { SkillDto } from '../../skills.schemas.js';

export const MARKETPLACE_PROVIDER = 'platform-marketplace';

export class ManageMarketplace extends Command<z.output<typeof SkillDto>> {
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
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ManageMarketplace)
export class ManageMarketplaceHandler implements ICommandHandler<ManageMarketplace> {
  constructor(
    private readonly access: SkillAccess,
    private readonly store: SkillStore,
  ) {}

  async execute({ skillId, action, caller }: ManageMarketplace) {
    const context = commandContext(caller);
    if (action.kind !== 'install') {
      if (!authorize(caller, 'skill.marketplace.curate', null).allow)
        throw new ForbiddenError(
          'marketplace_admin_only',
          'only admins list, archive and restore marketplace Skills',
        );
      await this.access.skill(skillId, caller);
      const { position } = await this.store.run(
        action.kind === 'list'
          ? { type: 'ListOnMarketplace', skillId, versionId: null }
          : action.kind === 'archive'
            ? { type: 'ArchiveFromMarketplace', skillId }
            : { type: 'RestoreToMarketplace', skillId },
        context,
      );
      await this.store.settle(position);
      return toSkillDto((await this.store.skill(skillId))!);
    }
    const placement = this.access.placement(action.target);
    await this.access.canChange(placement, caller);
    const { state } = await this.store.aggregates.load(skillStreamId(skillId), skillDecider);
    const listing = marketplaceListing(state, skillId);
    await this.access.requireFreeName(listing.content.name, placement);
    const installedId = newId('skl');
    const { position } = await this.store.run(
      {
        type: 'InstallSkill',
        skillId: installedId,
        versionId: this.store.newVersionId(),
        placement,
        provider: MARKETPLACE_PROVIDER,
        creatorType: 'USER',
        creatorId: caller.userId,
        listing,
      },
      context,
    );
    await this.store.settle(position);
    return toSkillDto((await this.store.skill(installedId))!, await this.store.versions(installedId));
  }
}
