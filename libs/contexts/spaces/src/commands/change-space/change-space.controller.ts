// PATCH /spaces/{spaceId} (spec: Update a Space).
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SpaceDto } from '../../queries/get-space/space.dto.js';
import { GetSpace } from '../../queries/get-space/get-space.query.js';
import { SPACES_READ_MODEL } from '../../spaces.read-model.js';
import { ChangeSpace } from './change-space.command.js';
import { ChangeSpaceBody } from './change-space.schema.js';

@Controller('api/v1/core/spaces')
export class ChangeSpaceController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Update a Space',
    body: ChangeSpaceBody,
    response: { status: 200, schema: SpaceDto, description: 'The updated Space' },
    errors: [
      400,
      {
        status: 403,
        description: '`space_change_denied`: only its owners (and admins) change it',
      },
      { status: 404, description: 'No such Space, or one this key cannot see' },
      {
        status: 409,
        description:
          '`space_name_taken`/`space_slug_taken`: a Space this key may see has it; `space_name_unavailable`/' +
          '`space_slug_unavailable`: it is in use where this key cannot see (no Space named, no id given)',
      },
    ],
  })
  @Patch(':spaceId')
  async change(
    @Param('spaceId') spaceId: string,
    @Body(new ZodBody(ChangeSpaceBody)) body: z.output<typeof ChangeSpaceBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(new ChangeSpace(spaceId, body, commandContext(caller), principalOf(caller)), [
      SPACES_READ_MODEL,
    ]);
    return this.queries.execute(new GetSpace(spaceId, caller));
  }
}
