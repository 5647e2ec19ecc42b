// GET /knowledge/{agentId}/documents/{documentId}/log (our extension).
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param } from '@nestjs/common';
import { GetDocumentLog } from './get-document-log.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class GetDocumentLogController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: "A document's ingestion log: every event of its history, oldest first (extension)",
    response: { status: 200, description: '`{ documentId, entries: [{ at, event, actor, details }] }`' },
    errors: [403, 404],
  })
  @Get('documents/:documentId/log')
  log(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetDocumentLog(agentId, documentId, caller));
  }
}
