// One Skill with its versions, one version with its instructions, and the marketplace listing.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { forbidden, permits, type Principal } from '#access';
import { SkillVersionNotFoundError } from '../../skill.decider.js';
import { SkillAccess } from '../../skill-access.js';
import { toSkillDto, toVersionDto } from '../../skill-dto.js';
import { SkillReader } from '../../skill.reader.js';
import type { MarketplaceListQuery, SkillDto, SkillVersionDto } from '../../skills.schemas.js';

export class GetSkill extends Query<z.output<typeof SkillDto> | z.output<typeof SkillVersionDto>> {
  constructor(
    readonly skillId: string,
    readonly versionId: string | null,
    readonly principal: Principal,
    /** The Skill with its versions (GET /skills/{id}), or without (as the marketplace routes answer it). */
    readonly withVersions = true,
  ) {
    super();
  }
}

@QueryHandler(GetSkill)
export class GetSkillHandler implements IQueryHandler<GetSkill> {
  constructor(
    private readonly access: SkillAccess,
    private readonly reader: SkillReader,
  ) {}

  async execute({ skillId, versionId, principal, withVersions }: GetSkill) {
    const skill = await this.access.skill(skillId, principal);
    if (versionId === null)
      return withVersions ? toSkillDto(skill, await this.reader.versions(skill.id)) : toSkillDto(skill);
    const version = await this.reader.version(versionId);
    if (!version || version.skillId !== skill.id) throw new SkillVersionNotFoundError(skill.id, versionId);
    return toVersionDto(version, await this.reader.text(version.instructions));
  }
}

export class ListMarketplace extends Query<{ data: z.output<typeof SkillDto>[]; nextCursor: null }> {
  constructor(
    readonly archived: z.output<typeof MarketplaceListQuery>['archived'],
    readonly principal: Principal,
  ) {
    super();
  }
}

/** The marketplace's entries: the listed ones for everyone; archived ones (to restore them) for admins only. */
@QueryHandler(ListMarketplace)
export class ListMarketplaceHandler implements IQueryHandler<ListMarketplace> {
  constructor(private readonly reader: SkillReader) {}

  async execute({ archived, principal }: ListMarketplace) {
    if (archived !== 'false' && !permits(principal, 'skill.marketplace.curate', null))
      throw forbidden('marketplace_admin_only', 'only admins list archived marketplace Skills');
    const states =
      archived === 'false' ? ['listed'] : archived === 'true' ? ['archived'] : ['listed', 'archived'];
    const entries = await this.reader.placed({ marketplace: { $in: states } });
    return { data: entries.map((skill) => toSkillDto(skill)), nextCursor: null };
  }
}
