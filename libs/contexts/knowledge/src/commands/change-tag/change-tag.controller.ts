// PUT /knowledge/{agentId}/tags/{tagId} (spec): rename or recolour.
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { TAGS_READ_MODEL } from '../../knowledge.read-model.js';
import { QueryBus } from '@nestjs/cqrs';
import { GetTag } from '../../queries/get-tag/get-tag.query.js';
import { Body, Param, Put } from '@nestjs/common';
import type { z } from 'zod';
import { ChangeTagBody, TagDto } from '../../knowledge.schemas.js';
import { ChangeTag } from './change-tag.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller(['api/v1/core/knowledge/:agentId', 'api/v1/bridge/agents/:agentId/knowledge'])
export class ChangeTagController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Rename or recolour a tag',
    body: ChangeTagBody,
    response: { status: 200, schema: TagDto, description: 'The tag' },
    errors: [400, 403, 404],
  })
  @Put('tags/:tagId')
  async change(
    @Param('agentId') agentId: string,
    @Param('tagId') tagId: string,
    @Body(new ZodBody(ChangeTagBody)) body: z.output<typeof ChangeTagBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(new ChangeTag(agentId, tagId, body, commandContext(caller), principalOf(caller)), [
      TAGS_READ_MODEL,
    ]);
    return this.queries.execute(new GetTag(agentId, tagId, caller));
  }
}
