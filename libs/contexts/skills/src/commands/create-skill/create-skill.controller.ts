// POST /skills (inline) and POST /skills/upload (a .md with frontmatter or a .zip with SKILL.md and reference files).
import { Body, Controller, Post, Req, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { ApiRoute, parseOrThrow, readMultipartFile } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { validateDescription, validateInstructions, validateSkillName } from '../../bundle/skill-manifest.js';
import { readSkillUpload } from '../../bundle/skill-upload.js';
import { CreateSkillBody, SkillDto, UploadFields } from '../../skills.schemas.js';
import { GetSkill } from '../../queries/get-skill/get-skill.query.js';
import { SKILL_READ_MODELS } from '../../skills.read-model.js';
import { CreateSkill } from './create-skill.command.js';

const BAD_INPUT =
  'Invalid request: `invalid_name`, `invalid_description`, `invalid_instructions`, `invalid_placement`; for uploads ' +
  'also `unknown_frontmatter_key` (naming the key), `invalid_frontmatter`, `unsupported_skill_file` and the zip ' +
  'refusals naming the entry (`zip_path_escapes`, `zip_symlink`, `zip_bomb`, `zip_too_many_files`, `zip_too_large`, ' +
  '`zip_missing_skill_md`, `zip_corrupt`, …). Nothing is stored on refusal.';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/skills')
export class CreateSkillController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Skills',
    summary: 'Create a Skill inline',
    idempotent: true,
    description:
      'Its first version is a draft (Agents load published versions only), or published at once with `publish`.',
    body: CreateSkillBody,
    response: { status: 201, schema: SkillDto, description: 'The Skill, with its versions' },
    errors: [
      { status: 400, description: BAD_INPUT },
      403,
      404,
      { status: 409, description: '`skill_name_taken`: a Skill of the same place has this name' },
    ],
  })
  @Post()
  create(@Body() raw: unknown, @CurrentCaller() caller: Caller) {
    const body = parseOrThrow(CreateSkillBody, raw);
    const manifest = {
      name: validateSkillName(body.name),
      description: validateDescription(body.description),
      instructions: validateInstructions(body.instructions),
    };
    return this.send(
      new CreateSkill(
        { spaceId: body.spaceId, agentId: body.agentId },
        { manifest, files: [] },
        body.publish,
        commandContext(caller),
        principalOf(caller),
      ),
      caller,
    );
  }

  @ApiRoute({
    tag: 'Skills',
    summary: 'Create a Skill from a .md or .zip upload',
    idempotent: true,
    description:
      'multipart/form-data: `file` (a SKILL.md-style .md whose YAML frontmatter carries name and description, or a .zip ' +
      'holding SKILL.md and reference files), `spaceId` or `agentId`, `publish` (true|false). Reference files go to ' +
      'the blob store.',
    response: { status: 201, schema: SkillDto, description: 'The Skill, with its versions' },
    errors: [{ status: 400, description: BAD_INPUT }, 403, 404, 409, 413],
  })
  @Post('upload')
  async upload(@Req() request: FastifyRequest, @CurrentCaller() caller: Caller) {
    const { fields, file } = await readMultipartFile(request);
    const target = parseOrThrow(UploadFields, fields);
    const bundle = await readSkillUpload(file.filename, file.bytes);
    return this.send(
      new CreateSkill(
        { spaceId: target.spaceId, agentId: target.agentId },
        bundle,
        target.publish,
        commandContext(caller),
        principalOf(caller),
      ),
      caller,
    );
  }

  /** Sends the command, waits for the Skills read models, and answers the Skill with its versions. */
  private async send(command: CreateSkill, caller: Caller) {
    const { id } = await this.writes.send(command, SKILL_READ_MODELS);
    return this.queries.execute(new GetSkill(id, null, principalOf(caller)));
  }
}
