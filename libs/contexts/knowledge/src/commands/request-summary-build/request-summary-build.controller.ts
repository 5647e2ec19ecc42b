// POST /knowledge/{agentId}/summary-index/build and …/rebuild (extension): a build, incremental or from scratch.
import { Body, Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SummaryBuildBody, SummaryIndexStatusDto } from '../../knowledge.schemas.js';
import { GetSummaryIndex } from '../../queries/get-summary-index/get-summary-index.query.js';
import { CONFLICT_RUNNING } from '../../summary/summary-index.dto.js';
import { SUMMARY_INDEXES_READ_MODEL } from '../../summary/summary-index.read-model.js';
import { RequestSummaryBuild } from './request-summary-build.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId/summary-index')
export class RequestSummaryBuildController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Build the section-summary index, reusing the summaries of unchanged groups (extension)',
    description:
      "The Agent's chat model (the instance's default when it has none) writes the summaries. The build runs in " +
      'the background; GET shows its progress; the previous tree serves until it completes.',
    body: SummaryBuildBody,
    response: { status: 202, schema: SummaryIndexStatusDto, description: 'Requested' },
    errors: [400, 403, 404, CONFLICT_RUNNING],
    idempotent: true,
  })
  @Post('build')
  @HttpCode(202)
  build(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(SummaryBuildBody)) body: z.output<typeof SummaryBuildBody>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.request(agentId, body.full, caller);
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Rebuild the section-summary index from scratch, summarising every group again (extension)',
    response: { status: 202, schema: SummaryIndexStatusDto, description: 'Requested' },
    errors: [403, 404, CONFLICT_RUNNING],
    idempotent: true,
  })
  @Post('rebuild')
  @HttpCode(202)
  rebuild(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    return this.request(agentId, true, caller);
  }

  private async request(agentId: string, full: boolean, caller: Caller) {
    await this.writes.send(
      new RequestSummaryBuild(agentId, full, commandContext(caller), principalOf(caller)),
      [SUMMARY_INDEXES_READ_MODEL],
    );
    return this.queries.execute(new GetSummaryIndex(agentId, caller));
  }
}
