// A user changes their own settings: today the language (`de` | `en`). Never the role (that is an admin's, and never
// one's own: PATCH /users/{userId}).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { assertAllowed } from '../../access-policy.js';
import type { Caller } from '../../http/caller.js';
import { userDecider, userStreamId, type UserLanguage } from '../../user.events.js';

export class ChangeOwnUser extends Command<WriteResult> {
  constructor(
    readonly language: UserLanguage,
    readonly context: CommandContext,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ChangeOwnUser)
export class ChangeOwnUserHandler implements ICommandHandler<ChangeOwnUser> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ language, context, caller }: ChangeOwnUser) {
    assertAllowed(caller, 'user.self', null, 'this principal is not a user');
    const result = await this.aggregates.decide(
      userStreamId(caller.userId),
      userDecider,
      {
        type: 'ChangeLanguage',
        userId: caller.userId,
        language,
        source: caller.source ?? { address: null, userAgent: null },
      },
      context,
    );
    return { id: caller.userId, position: result.position };
  }
}
