// GET /cost-control/spaces/{spaceId} (our extension): a Space's weekly spend limit, usage in the week, overage and
// resetsAt, for whoever sees the Space.
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { GetSpaceSpend } from './get-space-spend.query.js';
import { SpaceSpendDto } from './get-space-spend.schema.js';

@Controller('api/v1/core')
export class GetSpaceSpendController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Usage',
    summary: "A Space's weekly spend limit, what the week used, its overage and when it resets",
    description:
      "The Space's week starts at its creation plus whole weeks; it counts every call made for the Space: its " +
      "Agents' conversation turns and tool steps, generate endpoints, memory extraction, compaction, and the " +
      'embeddings of its Knowledge, whoever makes them.',
    response: { status: 200, schema: SpaceSpendDto, description: 'The limit and the current week' },
    errors: [401, 403, 404],
  })
  @Get('cost-control/spaces/:spaceId')
  get(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetSpaceSpend(spaceId, caller));
  }
}
