// POST /spaces (spec: Create a Space).
import { Body, Controller, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SpaceDto } from '../../queries/get-space/space.dto.js';
import { GetSpace } from '../../queries/get-space/get-space.query.js';
import { SPACES_READ_MODEL } from '../../spaces.read-model.js';
import { CreateSpace } from './create-space.command.js';
import { CreateSpaceBody } from './create-space.schema.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/spaces')
export class CreateSpaceController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Create a Space',
    body: CreateSpaceBody,
    idempotent: true,
    response: { status: 201, schema: SpaceDto, description: 'The created Space' },
    errors: [
      400,
      {
        status: 403,
        description:
          '`space_creation_restricted`: an admin restricted creating shared Spaces to roles the caller does not have',
      },
      {
        status: 409,
        description:
          'Names are unique across the instance. `space_name_taken` (or `space_slug_taken`): a Space this key may ' +
          'see already has it; `space_name_unavailable` (or `space_slug_unavailable`): the value is in use where this ' +
          'key cannot see; the answer names no Space and gives no id. A slug left out is derived from the name and ' +
          'made unique (a suffix) when that one is in use, so it never conflicts.',
      },
    ],
  })
  @Post()
  async create(
    @Body(new ZodBody(CreateSpaceBody)) body: z.output<typeof CreateSpaceBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { id } = await this.writes.send(
      new CreateSpace(body, commandContext(caller), principalOf(caller)),
      [SPACES_READ_MODEL],
    );
    return this.queries.execute(new GetSpace(id, caller));
  }
}
