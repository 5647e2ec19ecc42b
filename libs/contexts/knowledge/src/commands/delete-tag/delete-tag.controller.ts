// DELETE /knowledge/{agentId}/tags/{tagId} (spec). The documents that carried the tag lose it through the
// tag-deletion process manager; the answer waits until the document lists show that (bounded, like every
// read-your-writes wait).
import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, principalOf, CurrentCaller, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { TAGS_READ_MODEL, DOCUMENTS_READ_MODEL } from '../../knowledge.read-model.js';
import { Delete, HttpCode, Param } from '@nestjs/common';
import { TAG_DELETION_PROCESS } from '../../tag-deletion.process.js';
import { DeleteTag } from './delete-tag.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller(['api/v1/core/knowledge/:agentId', 'api/v1/bridge/agents/:agentId/knowledge'])
export class DeleteTagController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Delete a tag (documents carrying it lose it)',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  })
  @Delete('tags/:tagId')
  @HttpCode(204)
  async delete(
    @Param('agentId') agentId: string,
    @Param('tagId') tagId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    const result = await this.writes.send(
      new DeleteTag(agentId, tagId, 'requested', commandContext(caller), principalOf(caller)),
      [],
    );
    const tagDeletion = { projection: TAG_DELETION_PROCESS };
    if (await this.writes.settle(result.position, [TAGS_READ_MODEL, DOCUMENTS_READ_MODEL, tagDeletion]))
      await this.writes.settleAtHead([TAGS_READ_MODEL, DOCUMENTS_READ_MODEL]);
  }
}
