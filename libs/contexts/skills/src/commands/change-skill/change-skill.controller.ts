// PUT /skills/{skillId} (save a draft), PUT /skills/{skillId}/upload (a draft from a .md or .zip),
// POST /skills/{skillId}/publish, PUT /skills/{skillId}/active-version (our design).
import { Body, Controller, HttpCode, Param, Post, Put, Req, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, parseOrThrow, readMultipartFile, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { validateDescription, validateInstructions, validateSkillName } from '../../bundle/skill-manifest.js';
import { readSkillUpload } from '../../bundle/skill-upload.js';
import { ActiveVersionBody, SaveDraftBody, SkillDto } from '../../skills.schemas.js';
import { GetSkill } from '../../queries/get-skill/get-skill.query.js';
import { SKILL_READ_MODELS } from '../../skills.read-model.js';
import { ChangeSkill } from './change-skill.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/skills/:skillId')
export class ChangeSkillController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'Save a draft of a Skill',
    description:
      "Fields left out keep the current draft's (or the live version's). The live version does not change until the " +
      'draft is published; a published version is immutable.',
    body: SaveDraftBody,
    response: { status: 200, schema: SkillDto, description: 'The Skill, with its versions' },
    errors: [400, 403, 404],
  })
  @Put()
  saveDraft(@Param('skillId') skillId: string, @Body() raw: unknown, @CurrentCaller() caller: Caller) {
    const body = parseOrThrow(SaveDraftBody, raw);
    const manifest = {
      ...(body.name !== undefined ? { name: validateSkillName(body.name) } : {}),
      ...(body.description !== undefined ? { description: validateDescription(body.description) } : {}),
      ...(body.instructions !== undefined ? { instructions: validateInstructions(body.instructions) } : {}),
    };
    return this.send(
      new ChangeSkill(skillId, { kind: 'draft', manifest }, commandContext(caller), principalOf(caller)),
      caller,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Save a draft of a Skill from a .md or .zip upload',
    description:
      'multipart/form-data with `file`; the bundle (its SKILL.md and reference files) becomes the draft.',
    response: { status: 200, schema: SkillDto, description: 'The Skill, with its versions' },
    errors: [400, 403, 404],
  })
  @Put('upload')
  async uploadDraft(
    @Param('skillId') skillId: string,
    @Req() request: FastifyRequest,
    @CurrentCaller() caller: Caller,
  ) {
    const { file } = await readMultipartFile(request);
    const bundle = await readSkillUpload(file.filename, file.bytes);
    return this.send(
      new ChangeSkill(
        skillId,
        { kind: 'draft', manifest: bundle.manifest, files: bundle.files },
        commandContext(caller),
        principalOf(caller),
      ),
      caller,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Publish the draft',
    idempotent: true,
    description: 'The draft becomes the published, active version: the one Agents load.',
    response: { status: 200, schema: SkillDto, description: 'The Skill, with its versions' },
    errors: [403, 404, { status: 409, description: '`no_draft`, `skill_name_taken`' }],
  })
  @Post('publish')
  @HttpCode(200)
  publish(@Param('skillId') skillId: string, @CurrentCaller() caller: Caller) {
    return this.send(
      new ChangeSkill(skillId, { kind: 'publish' }, commandContext(caller), principalOf(caller)),
      caller,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Set the active version (rollback)',
    description: 'Any published version; setting an earlier one back is a rollback, recorded as an event.',
    body: ActiveVersionBody,
    response: { status: 200, schema: SkillDto, description: 'The Skill, with its versions' },
    errors: [
      400,
      403,
      { status: 404, description: '`skill_not_found`, `skill_version_not_found`' },
      { status: 409, description: '`skill_version_not_published`' },
    ],
  })
  @Put('active-version')
  activate(
    @Param('skillId') skillId: string,
    @Body(new ZodBody(ActiveVersionBody)) body: z.output<typeof ActiveVersionBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.send(
      new ChangeSkill(
        skillId,
        { kind: 'activate', versionId: body.versionId },
        commandContext(caller),
        principalOf(caller),
      ),
      caller,
    );
  }

  /** Sends the command, waits for the Skills read models, and answers the Skill with its versions. */
  private async send(command: ChangeSkill, caller: Caller) {
    const { id } = await this.writes.send(command, SKILL_READ_MODELS);
    return this.queries.execute(new GetSkill(id, null, principalOf(caller)));
  }
}
