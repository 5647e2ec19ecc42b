// The marketplace routes (our design): POST /skills/{skillId}/marketplace (list, admins), DELETE
// /marketplace/skills/{skillId} (archive, admins), POST /marketplace/skills/{skillId}/restore (admins),
// POST /marketplace/skills/{skillId}/install.
import { Body, Controller, Delete, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { PlacementBody, SkillDto } from '../../skills.schemas.js';
import { GetSkill } from '../../queries/get-skill/get-skill.query.js';
import { SKILL_READ_MODELS } from '../../skills.read-model.js';
import { ManageMarketplace } from './marketplace.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class MarketplaceController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'List a Skill on the marketplace (admins)',
    idempotent: true,
    description: 'Its active published version becomes installable everywhere.',
    response: { status: 200, schema: SkillDto, description: 'The Skill' },
    errors: [
      403,
      404,
      { status: 409, description: '`skill_not_published`, `skill_not_listable` (an installed copy)' },
    ],
  })
  @Post('skills/:skillId/marketplace')
  @HttpCode(200)
  list(@Param('skillId') skillId: string, @CurrentCaller() caller: Caller) {
    return this.send(
      new ManageMarketplace(skillId, { kind: 'list' }, commandContext(caller), principalOf(caller)),
      caller,
      false,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Archive a marketplace entry (admins)',
    description:
      'No longer installable; entries are archived, never deleted, so installed copies keep their provenance.',
    response: { status: 200, schema: SkillDto, description: 'The Skill' },
    errors: [403, 404, { status: 409, description: '`skill_not_listed`' }],
  })
  @Delete('marketplace/skills/:skillId')
  archive(@Param('skillId') skillId: string, @CurrentCaller() caller: Caller) {
    return this.send(
      new ManageMarketplace(skillId, { kind: 'archive' }, commandContext(caller), principalOf(caller)),
      caller,
      false,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Restore an archived marketplace entry (admins)',
    idempotent: true,
    description:
      'The entry is offered again at the version it offered when archived (event `SkillRestoredToMarketplace`); ' +
      '`GET /marketplace/skills?archived=true` lists the archived entries.',
    response: { status: 200, schema: SkillDto, description: 'The Skill' },
    errors: [403, 404, { status: 409, description: '`skill_not_archived` (never listed: list it instead)' }],
  })
  @Post('marketplace/skills/:skillId/restore')
  @HttpCode(200)
  restore(@Param('skillId') skillId: string, @CurrentCaller() caller: Caller) {
    return this.send(
      new ManageMarketplace(skillId, { kind: 'restore' }, commandContext(caller), principalOf(caller)),
      caller,
      false,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Install a marketplace Skill to a Space or an Agent',
    idempotent: true,
    description:
      'A new Skill (source MARKETPLACE; provider and sourceId name its origin) with the listed version published.',
    body: PlacementBody,
    response: { status: 201, schema: SkillDto, description: 'The installed Skill' },
    errors: [400, 403, 404, { status: 409, description: '`skill_not_listed`, `skill_name_taken`' }],
  })
  @Post('marketplace/skills/:skillId/install')
  install(
    @Param('skillId') skillId: string,
    @Body(new ZodBody(PlacementBody)) body: z.output<typeof PlacementBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.send(
      new ManageMarketplace(
        skillId,
        { kind: 'install', target: body },
        commandContext(caller),
        principalOf(caller),
      ),
      caller,
    );
  }

  /** Sends the command, waits for the Skills read models, and answers the Skill (with its versions if asked). */
  private async send(command: ManageMarketplace, caller: Caller, withVersions = true) {
    const { id } = await this.writes.send(command, SKILL_READ_MODELS);
    return this.queries.execute(new GetSkill(id, null, principalOf(caller), withVersions));
  }
}
