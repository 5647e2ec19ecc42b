// DELETE /invitations/{invitationId} (admins): the invitation is revoked, not forgotten.
import { Controller, Delete, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { INVITATIONS_READ_MODEL } from '../../invitations.read-model.js';
import { InvitationDto } from '../../queries/list-invitations/invitation.dto.js';
import { GetInvitation } from '../../queries/list-invitations/list-invitations.query.js';
import { RevokeInvitation } from './revoke-invitation.command.js';

@Controller('api/v1/core')
export class RevokeInvitationController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'Revoke an invitation (admin)',
    response: { status: 200, schema: InvitationDto, description: 'The revoked invitation' },
    errors: [403, 404, 409],
  })
  @Delete('invitations/:invitationId')
  async revoke(@Param('invitationId') invitationId: string, @CurrentCaller() caller: Caller) {
    await this.sender.send(
      new RevokeInvitation(invitationId, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [INVITATIONS_READ_MODEL],
    );
    return this.queries.execute(new GetInvitation(invitationId, caller));
  }
}
