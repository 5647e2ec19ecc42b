// GET /skills (our design) and GET /marketplace/skills.
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { SkillDto, SkillListQuery } from '../../skills.schemas.js';
import { ListMarketplace } from '../get-skill/get-skill.query.js';
import { ListSkills } from './list-skills.query.js';

@Controller('api/v1/core')
export class ListSkillsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'List Skills',
    description:
      "`spaceId`: the Space's Skills; `agentId`: every Skill the Agent has (its own, its Space's, the DEFAULT ones); " +
      'neither: the DEFAULT Skills.',
    query: SkillListQuery,
    response: { status: 200, schema: listOf(SkillDto), description: 'The Skills, oldest first' },
    errors: [400, 403, 404],
  })
  @Get('skills')
  list(
    @Query(new ZodQuery(SkillListQuery)) query: z.output<typeof SkillListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListSkills(query, caller));
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'The marketplace: Skills listed and installable',
    response: { status: 200, schema: listOf(SkillDto), description: 'Listed Skills (archived ones are not)' },
  })
  @Get('marketplace/skills')
  marketplace() {
    return this.queries.execute(new ListMarketplace());
  }
}
