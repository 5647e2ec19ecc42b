// POST /knowledge/{agentId}/documents/{documentId}/tags/{tagId} (spec).
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { QueryBus } from '@nestjs/cqrs';
import { GetDocument } from '../../queries/get-document/get-document.query.js';
import { Param, Post } from '@nestjs/common';
import { DocumentDto } from '../../knowledge.schemas.js';
import { AttachDocumentTag } from './attach-document-tag.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller(['api/v1/core/knowledge/:agentId', 'api/v1/bridge/agents/:agentId/knowledge'])
export class AttachDocumentTagController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Attach a tag to a document',
    idempotent: true,
    response: { status: 201, schema: DocumentDto, description: 'The document' },
    errors: [403, 404],
  })
  @Post('documents/:documentId/tags/:tagId')
  async attach(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Param('tagId') tagId: string,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new AttachDocumentTag(documentId, tagId, agentId, commandContext(caller), principalOf(caller)),
      [DOCUMENTS_READ_MODEL],
    );
    return this.queries.execute(new GetDocument(agentId, documentId, caller));
  }
}
