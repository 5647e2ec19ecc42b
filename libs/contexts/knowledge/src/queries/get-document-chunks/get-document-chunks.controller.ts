// GET /knowledge/{agentId}/documents/{documentId}/chunks (our extension).
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param } from '@nestjs/common';
import { GetDocumentChunks } from './get-document-chunks.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class GetDocumentChunksController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The chunks of the last Ready version: text, section path and offsets (extension)',
    response: {
      status: 200,
      description: '`{ documentId, chunks: [{ index, sectionPath, start, end, text }] }`',
    },
    errors: [403, 404, { status: 409, description: '`document_not_ready`: no version has been Ready yet' }],
  })
  @Get('documents/:documentId/chunks')
  chunks(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetDocumentChunks(agentId, documentId, caller));
  }
}
