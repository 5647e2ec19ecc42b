// DELETE /knowledge/{agentId}/documents/{documentId} (spec).
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { Delete, HttpCode, Param } from '@nestjs/common';
import { DeleteDocument } from './delete-document.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class DeleteDocumentController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Delete a document',
    response: { status: 204, description: 'Deleted' },
    errors: [
      {
        status: 403,
        description:
          '`agent_access_denied`: the key is not granted the Agent; `space_change_denied`: a Space-level document ' +
          'needs the right to manage the Agent (to change its Space); `admin_required`: a Global one',
      },
      404,
    ],
  })
  @Delete('documents/:documentId')
  @HttpCode(204)
  async delete(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await this.writes.send(
      new DeleteDocument(documentId, 'requested', agentId, commandContext(caller), principalOf(caller)),
      [DOCUMENTS_READ_MODEL],
    );
  }
}
