// POST /knowledge/{agentId}/documents/download (our extension): several files as one zip. A read: a retry with an
// Idempotency-Key is answered again (a zip is not an answer the log keeps for a replay).
import { Controller } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, ZodBody } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { Body, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { DownloadDocumentsBody } from '../../knowledge.schemas.js';
import { DownloadDocuments } from './download-documents.query.js';

@Controller('api/v1/core/knowledge/:agentId')
export class DownloadDocumentsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The original files of several documents as one zip (extension)',
    body: DownloadDocumentsBody,
    response: { status: 200, description: 'application/zip' },
    errors: [400, 403, 404],
  })
  @Post('documents/download')
  @HttpCode(200)
  async downloadMany(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(DownloadDocumentsBody)) body: z.output<typeof DownloadDocumentsBody>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const archive = await this.queries.execute(new DownloadDocuments(agentId, body.documentIds, caller));
    void reply
      .header('content-type', 'application/zip')
      .header('content-disposition', 'attachment; filename="documents.zip"');
    return archive;
  }
}
