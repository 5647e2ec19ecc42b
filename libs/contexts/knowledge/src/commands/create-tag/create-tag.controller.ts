// POST /knowledge/{agentId}/tags (spec).
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { TAGS_READ_MODEL } from '../../knowledge.read-model.js';
import { QueryBus } from '@nestjs/cqrs';
import { GetTag } from '../../queries/get-tag/get-tag.query.js';
import { Body, Param, Post } from '@nestjs/common';
import type { z } from 'zod';
import { CreateTagBody, TagDto } from '../../knowledge.schemas.js';
import { CreateTag } from './create-tag.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller(['api/v1/core/knowledge/:agentId', 'api/v1/bridge/agents/:agentId/knowledge'])
export class CreateTagController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Create a tag',
    body: CreateTagBody,
    response: { status: 201, schema: TagDto, description: 'The tag' },
    errors: [400, 403, 404],
    idempotent: true,
  })
  @Post('tags')
  async create(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(CreateTagBody)) body: z.output<typeof CreateTagBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { id } = await this.writes.send(
      new CreateTag(agentId, body.name, body.color, commandContext(caller), principalOf(caller)),
      [TAGS_READ_MODEL],
    );
    return this.queries.execute(new GetTag(agentId, id, caller));
  }
}
