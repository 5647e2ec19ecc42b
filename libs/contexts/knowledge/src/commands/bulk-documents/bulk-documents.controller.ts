// POST /knowledge/{agentId}/documents/bulk (our extension): one action over many documents.
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { Body, HttpCode, Param, Post } from '@nestjs/common';
import type { z } from 'zod';
import { BulkDocumentsBody, BulkResultDto } from '../../knowledge.schemas.js';
import { BulkDocuments } from './bulk-documents.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class BulkDocumentsController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    idempotent: true,
    summary:
      'One action over many documents: add or remove a tag, re-process, force re-process, delete (extension)',
    description:
      'Answers the outcome per document; a document that is not found or not writable does not stop the others.',
    body: BulkDocumentsBody,
    response: { status: 200, schema: BulkResultDto, description: 'One result per document' },
    errors: [400, 403, 404],
  })
  @Post('documents/bulk')
  @HttpCode(200)
  async bulk(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(BulkDocumentsBody)) body: z.output<typeof BulkDocumentsBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { action, results } = await this.writes.send(
      new BulkDocuments(agentId, body, commandContext(caller), principalOf(caller)),
      [DOCUMENTS_READ_MODEL],
    );
    return { action, results };
  }
}
