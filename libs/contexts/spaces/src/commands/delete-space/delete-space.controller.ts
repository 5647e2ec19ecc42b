// DELETE /spaces/{spaceId} (spec: Delete a Space).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SPACES_READ_MODEL } from '../../spaces.read-model.js';
import { DeleteSpace } from './delete-space.command.js';

@Controller('api/v1/core/spaces')
export class DeleteSpaceController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Delete a Space',
    description:
      'Permanently removes the Space and, through their own commands, every Agent in it (and later its Knowledge and ' +
      'conversations). Its owners (and admins) only.',
    response: { status: 204, description: 'Deleted' },
    errors: [
      { status: 403, description: '`space_change_denied`: the caller is not an owner of the Space' },
      { status: 404, description: 'No such Space, or one this key cannot see' },
    ],
  })
  @Delete(':spaceId')
  @HttpCode(204)
  async delete(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.writes.send(new DeleteSpace(spaceId, commandContext(caller), principalOf(caller)), [
      SPACES_READ_MODEL,
    ]);
  }
}
