// GET /skills (our design) and GET /marketplace/skills.
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { MarketplaceListQuery, SkillDto, SkillListQuery } from '../../skills.schemas.js';
import { ListMarketplace } from '../get-skill/get-skill.query.js';
import { ListSkills } from './list-skills.query.js';
import { ListSkillsAsOf } from './list-skills-as-of.query.js';

@Controller('api/v1/core')
export class ListSkillsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'List Skills',
    description:
      "`spaceId`: the Space's Skills; `agentId`: every Skill the Agent has (its own, its Space's, the DEFAULT ones); " +
      'neither: the DEFAULT Skills. `agentId` with `asOf`: the Skills the Agent had available then, each with the ' +
      'version that was active (folded from the log).',
    query: SkillListQuery,
    response: { status: 200, schema: listOf(SkillDto), description: 'The Skills, oldest first' },
    errors: [400, 403, 404],
  })
  @Get('skills')
  list(
    @Query(new ZodQuery(SkillListQuery)) query: z.output<typeof SkillListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    if (query.asOf !== undefined) return this.queries.execute(new ListSkillsAsOf(query, principalOf(caller)));
    return this.queries.execute(new ListSkills(query, principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'The marketplace: Skills listed and installable (archived entries: admins)',
    description:
      'Listed entries by default. Admins list archived entries with `archived=true` (or both with `archived=all`) ' +
      'and bring one back with `POST /marketplace/skills/{skillId}/restore`.',
    query: MarketplaceListQuery,
    response: { status: 200, schema: listOf(SkillDto), description: 'The entries' },
    errors: [400, { status: 403, description: '`marketplace_admin_only`: archived entries are for admins' }],
  })
  @Get('marketplace/skills')
  marketplace(
    @Query(new ZodQuery(MarketplaceListQuery)) query: z.output<typeof MarketplaceListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListMarketplace(query.archived, principalOf(caller)));
  }
}
