// GET /spaces/{spaceId} (our extension).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, AsOfQuery, ZodQuery, type AsOf } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetSpace } from './get-space.query.js';
import { SpaceDto } from './space.dto.js';

@Controller('api/v1/core/spaces')
export class GetSpaceController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Get a Space (extension); with asOf, the Space as it was at that time (folded from the log)',
    query: AsOfQuery,
    response: { status: 200, schema: SpaceDto, description: 'The Space' },
    errors: [400, 404],
  })
  @Get(':spaceId')
  get(
    @Param('spaceId') spaceId: string,
    @Query(new ZodQuery(AsOfQuery)) query: AsOf,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetSpace(spaceId, caller, query.asOf ? new Date(query.asOf) : undefined));
  }
}
