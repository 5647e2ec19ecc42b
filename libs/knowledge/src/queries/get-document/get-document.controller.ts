// GET /knowledge/{agentId}/documents/{documentId} (our extension).
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { CurrentCaller, IdempotencyInterceptor, type Caller } from '#identity';
import { Get, Param } from '@nestjs/common';
import { DocumentDto } from '../../knowledge.schemas.js';
import { GetDocument } from './get-document.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class GetDocumentController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'One document (extension)',
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [403, 404],
  })
  @Get('documents/:documentId')
  get(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetDocument(agentId, documentId, caller));
  }
}
