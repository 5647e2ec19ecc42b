// One Skill with its versions, one version with its instructions, and the marketplace listing.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { SkillNotFoundError, SkillVersionNotFoundError } from '../../skill.decider.js';
import { curateAsk, SkillResolver } from '../../skill-resolver.js';
import { toSkillDto, toVersionDto } from '../../skill-dto.js';
import { SkillReader } from '../../skill.reader.js';
import type { MarketplaceListQuery, SkillDto, SkillVersionDto } from '../../skills.schemas.js';

@Requires(SkillResolver, (skills, { skillId, principal }: GetSkill) => skills.skill(skillId, principal))
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
  constructor(private readonly reader: SkillReader) {}

  async execute({ skillId, versionId, withVersions }: GetSkill) {
    const skill = await this.reader.skill(skillId);
    if (!skill) throw new SkillNotFoundError(skillId);
    if (versionId === null)
      return withVersions ? toSkillDto(skill, await this.reader.versions(skill.id)) : toSkillDto(skill);
    const version = await this.reader.version(versionId);
    if (!version || version.skillId !== skill.id) throw new SkillVersionNotFoundError(skill.id, versionId);
    return toVersionDto(version, await this.reader.text(version.instructions));
  }
}

/** Archived entries (to restore them) are for admins only. */
@Requires(({ archived }: ListMarketplace) =>
  archived === 'false' ? [] : curateAsk('only admins list archived marketplace Skills'),
)
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

  async execute({ archived }: ListMarketplace) {
    const states =
      archived === 'false' ? ['listed'] : archived === 'true' ? ['archived'] : ['listed', 'archived'];
    const entries = await this.reader.placed({ marketplace: { $in: states } });
    return { data: entries.map((skill) => toSkillDto(skill)), nextCursor: null };
  }
}
