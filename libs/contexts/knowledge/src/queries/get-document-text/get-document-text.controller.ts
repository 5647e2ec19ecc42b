// GET /knowledge/{agentId}/documents/{documentId}/content (our extension): text/plain.
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GetDocumentText } from './get-document-text.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class GetDocumentTextController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The text extracted from the last Ready version, which search citations point into (extension)',
    response: { status: 200, description: 'text/plain' },
    errors: [403, 404, { status: 409, description: '`document_not_ready`: no version has been Ready yet' }],
  })
  @Get('documents/:documentId/content')
  async content(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const text = await this.queries.execute(new GetDocumentText(agentId, documentId, caller));
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return text;
  }
}
