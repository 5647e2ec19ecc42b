// GET /spaces/{spaceId} (our extension).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#identity';
import { GetSpace } from './get-space.query.js';
import { SpaceDto } from './space.dto.js';

@Controller('api/v1/core/spaces')
export class GetSpaceController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Get a Space (extension)',
    response: { status: 200, schema: SpaceDto, description: 'The Space' },
    errors: [404],
  })
  @Get(':spaceId')
  get(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetSpace(spaceId, caller));
  }
}
