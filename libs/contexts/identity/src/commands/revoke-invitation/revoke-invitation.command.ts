// Revoking a pending invitation (admins): its link stops working.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import type { ChangeSource } from '../../user.events.js';
import { AskedAtRoute, type Principal } from '#access';
import { invitationStreamId } from '../../invitation.events.js';
import { invitationDecider } from '../../invitation.decider.js';

@AskedAtRoute('the route row asks user.manage (admins)')
export class RevokeInvitation extends Command<WriteResult> {
  constructor(
    readonly invitationId: string,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RevokeInvitation)
export class RevokeInvitationHandler implements ICommandHandler<RevokeInvitation> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ invitationId, source, context }: RevokeInvitation) {
    const result = await this.aggregates.decide(
      invitationStreamId(invitationId),
      invitationDecider,
      { type: 'RevokeInvitation', invitationId, source },
      context,
    );
    return { id: invitationId, position: result.position };
  }
}
