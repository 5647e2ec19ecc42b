// PUT /knowledge/{agentId}/documents/{documentId} (spec): rename, replace the content, set the tags.
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute, ZodBody } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { QueryBus } from '@nestjs/cqrs';
import { GetDocument } from '../../queries/get-document/get-document.query.js';
import { Body, Param, Put } from '@nestjs/common';
import type { z } from 'zod';
import { ChangeDocumentBody, DocumentDto } from '../../knowledge.schemas.js';
import { ChangeDocument } from './change-document.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class ChangeDocumentController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Rename a document, replace its content (processed again) or set its tags',
    body: ChangeDocumentBody,
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [
      400,
      {
        status: 403,
        description:
          '`agent_access_denied`: the key is not granted the Agent; `space_change_denied`: a Space-level document ' +
          'needs the right to manage the Agent (to change its Space); `admin_required`: a Global one',
      },
      404,
    ],
  })
  @Put('documents/:documentId')
  async change(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Body(new ZodBody(ChangeDocumentBody)) body: z.output<typeof ChangeDocumentBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { stored } = await this.writes.send(
      new ChangeDocument(agentId, documentId, body, commandContext(caller), principalOf(caller)),
      [DOCUMENTS_READ_MODEL],
    );
    await stored;
    return this.queries.execute(new GetDocument(agentId, documentId, caller));
  }
}
