// GET /knowledge/{agentId}/documents/{documentId} (our extension).
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, AsOfQuery, ZodQuery, type AsOf } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param, Query } from '@nestjs/common';
import { DocumentDto } from '../../knowledge.schemas.js';
import { GetDocument } from './get-document.query.js';
import { GetDocumentAsOf } from '../knowledge-as-of/knowledge-as-of.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class GetDocumentController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'One document (extension); with asOf, its metadata as it was at that time (folded from the log)',
    query: AsOfQuery,
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [400, 403, 404],
  })
  @Get('documents/:documentId')
  get(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Query(new ZodQuery(AsOfQuery)) query: AsOf,
    @CurrentCaller() caller: Caller,
  ) {
    if (query.asOf)
      return this.queries.execute(new GetDocumentAsOf(agentId, documentId, new Date(query.asOf), caller));
    return this.queries.execute(new GetDocument(agentId, documentId, caller));
  }
}
