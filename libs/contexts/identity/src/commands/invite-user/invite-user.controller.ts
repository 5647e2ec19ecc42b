// POST /invitations (admins): invite a person by email with an instance role.
import { Body, Controller, Post, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { INVITATIONS_READ_MODEL } from '../../invitations.read-model.js';
import { IssuedInvitationDto } from '../../queries/list-invitations/invitation.dto.js';
import { GetInvitation } from '../../queries/list-invitations/list-invitations.query.js';
import { InviteUser } from './invite-user.command.js';
import { InviteUserBody } from './invite-user.schema.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class InviteUserController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'Invite a person (admin)',
    idempotent: true,
    description:
      'Sends a single-use link (the mail port; embedded: GET /mail-outbox) and answers it once in `link`. ' +
      'The link expires after INVITATION_TTL_HOURS. There is no self sign-up.',
    body: InviteUserBody,
    response: { status: 201, schema: IssuedInvitationDto, description: 'The invitation and its link' },
    errors: [400, 403, 409],
  })
  @Post('invitations')
  async invite(
    @Body(new ZodBody(InviteUserBody)) body: z.output<typeof InviteUserBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const issued = await this.sender.send(
      new InviteUser(body, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [INVITATIONS_READ_MODEL],
    );
    return { ...(await this.queries.execute(new GetInvitation(issued.id, caller))), link: issued.link };
  }
}
