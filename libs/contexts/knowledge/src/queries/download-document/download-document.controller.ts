// GET /knowledge/{agentId}/documents/{documentId}/download (our extension): the file as sent.
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DownloadDocument } from './download-document.query.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class DownloadDocumentController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The uploaded file, as sent (extension)',
    response: { status: 200, description: 'The bytes, with the sniffed content type' },
    errors: [403, 404],
  })
  @Get('documents/:documentId/download')
  async download(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const file = await this.queries.execute(new DownloadDocument(agentId, documentId, caller));
    void reply
      .header('content-type', file.mimeType ?? 'application/octet-stream')
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    return file.bytes;
  }
}
