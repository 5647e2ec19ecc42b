// Revoking a pending invitation (admins): its link stops working.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { assertAdmin } from '../../access-policy.js';
import type { Caller } from '../../http/caller.js';
import { invitationDecider, invitationStreamId } from '../../invitation.events.js';

export class RevokeInvitation extends Command<WriteResult> {
  constructor(
    readonly invitationId: string,
    readonly context: CommandContext,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RevokeInvitation)
export class RevokeInvitationHandler implements ICommandHandler<RevokeInvitation> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ invitationId, context, caller }: RevokeInvitation) {
    assertAdmin(caller, 'user.manage');
    const result = await this.aggregates.decide(
      invitationStreamId(invitationId),
      invitationDecider,
      { type: 'RevokeInvitation', invitationId, source: caller.source ?? { address: null, userAgent: null } },
      context,
    );
    return { id: invitationId, position: result.position };
  }
}
