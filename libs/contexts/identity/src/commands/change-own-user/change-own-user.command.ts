// A user changes their own settings: today the language (`de` | `en`). Never the role (that is an admin's, and never
// one's own: PATCH /users/{userId}).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userActingAs, type Principal } from '#access';
import { userStreamId, type UserLanguage, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';

@AskedAtRoute('the route row asks user.self: one changes only their own account')
export class ChangeOwnUser extends Command<WriteResult> {
  constructor(
    readonly language: UserLanguage,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeOwnUser)
export class ChangeOwnUserHandler implements ICommandHandler<ChangeOwnUser> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ language, source, context, principal }: ChangeOwnUser) {
    const userId = userActingAs(principal);
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      { type: 'ChangeLanguage', userId, language, source },
      context,
    );
    return { id: userId, position: result.position };
  }
}
