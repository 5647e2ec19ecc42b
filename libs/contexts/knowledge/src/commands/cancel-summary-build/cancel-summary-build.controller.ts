// POST /knowledge/{agentId}/summary-index/cancel (extension).
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SummaryIndexStatusDto } from '../../knowledge.schemas.js';
import { GetSummaryIndex } from '../../queries/get-summary-index/get-summary-index.query.js';
import { SUMMARY_INDEXES_READ_MODEL } from '../../summary/summary-index.read-model.js';
import { CancelSummaryBuild } from './cancel-summary-build.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId/summary-index')
export class CancelSummaryBuildController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Cancel the build under way; the previous tree keeps serving (extension)',
    idempotent: true,
    response: { status: 200, schema: SummaryIndexStatusDto, description: 'Cancelled' },
    errors: [403, 404, { status: 409, description: '`no_summary_build`: no build is under way' }],
  })
  @Post('cancel')
  @HttpCode(200)
  async cancel(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    await this.writes.send(new CancelSummaryBuild(agentId, commandContext(caller), principalOf(caller)), [
      SUMMARY_INDEXES_READ_MODEL,
    ]);
    return this.queries.execute(new GetSummaryIndex(agentId, caller));
  }
}
