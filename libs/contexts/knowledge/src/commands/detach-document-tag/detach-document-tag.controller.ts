// DELETE /knowledge/{agentId}/documents/{documentId}/tags/{tagId} (spec).
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { QueryBus } from '@nestjs/cqrs';
import { GetDocument } from '../../queries/get-document/get-document.query.js';
import { Delete, Param } from '@nestjs/common';
import { DocumentDto } from '../../knowledge.schemas.js';
import { DetachDocumentTag } from './detach-document-tag.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller(['api/v1/core/knowledge/:agentId', 'api/v1/bridge/agents/:agentId/knowledge'])
export class DetachDocumentTagController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Detach a tag from a document',
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [403, 404],
  })
  @Delete('documents/:documentId/tags/:tagId')
  async detach(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Param('tagId') tagId: string,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new DetachDocumentTag(
        documentId,
        tagId,
        'requested',
        agentId,
        commandContext(caller),
        principalOf(caller),
      ),
      [DOCUMENTS_READ_MODEL],
    );
    return this.queries.execute(new GetDocument(agentId, documentId, caller));
  }
}
