// GET /skills/{skillId} and GET /skills/{skillId}/versions/{versionId} (our design).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, AsOfQuery, ZodQuery, type AsOf } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { SkillDto, SkillVersionDto } from '../../skills.schemas.js';
import { GetSkill } from './get-skill.query.js';
import { GetSkillAsOf } from './get-skill-as-of.query.js';

@Controller('api/v1/core/skills/:skillId')
export class GetSkillController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'A Skill, with its versions; with asOf, as it was at that time (folded from the log)',
    query: AsOfQuery,
    response: { status: 200, schema: SkillDto, description: 'The Skill' },
    errors: [400, 404],
  })
  @Get()
  get(
    @Param('skillId') skillId: string,
    @Query(new ZodQuery(AsOfQuery)) query: AsOf,
    @CurrentCaller() caller: Caller,
  ) {
    if (query.asOf)
      return this.queries.execute(new GetSkillAsOf(skillId, new Date(query.asOf), principalOf(caller)));
    return this.queries.execute(new GetSkill(skillId, null, principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'One version of a Skill, with its instructions',
    response: { status: 200, schema: SkillVersionDto, description: 'The version' },
    errors: [404],
  })
  @Get('versions/:versionId')
  version(
    @Param('skillId') skillId: string,
    @Param('versionId') versionId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetSkill(skillId, versionId, principalOf(caller)));
  }
}
