// A user changes their own settings: the language (`de` | `en`) and the name, and their password (the current one
// proves it is them, not someone at an unlocked screen). Never the role (that is an admin's, and never one's own:
// PATCH /users/{userId}).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ValidationError } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userActingAs, type Principal } from '#access';
import { userStreamId, type UserLanguage, type ChangeSource } from '../../user.events.js';
import { userDecider, type UserCommand } from '../../user.decider.js';
import { hashPassword, verifyPassword } from '../../password.js';

@AskedAtRoute('the route row asks user.self: one changes only their own account')
export class ChangeOwnUser extends Command<WriteResult> {
  constructor(
    readonly change: { readonly language?: UserLanguage; readonly name?: string },
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@AskedAtRoute('the route row asks user.self: one changes only their own password')
export class ChangeOwnPassword extends Command<WriteResult> {
  constructor(
    readonly input: { readonly currentPassword: string; readonly password: string },
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

  async execute({ change, source, context, principal }: ChangeOwnUser) {
    const userId = userActingAs(principal);
    const changes: UserCommand[] = [
      ...(change.name === undefined
        ? []
        : [{ type: 'RenameUser' as const, userId, name: change.name, source }]),
      ...(change.language
        ? [{ type: 'ChangeLanguage' as const, userId, language: change.language, source }]
        : []),
    ];
    let position = 0;
    for (const command of changes)
      position = (await this.aggregates.decide(userStreamId(userId), userDecider, command, context)).position;
    return { id: userId, position };
  }
}

@CommandHandler(ChangeOwnPassword)
export class ChangeOwnPasswordHandler implements ICommandHandler<ChangeOwnPassword> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ input, source, context, principal }: ChangeOwnPassword) {
    const userId = userActingAs(principal);
    const { state } = await this.aggregates.load(userStreamId(userId), userDecider);
    const current = state.status === 'absent' ? null : state.passwordHash;
    // One without a password yet (invited through single sign-on) gets one by a reset link, not here.
    if (!current || !(await verifyPassword(current, input.currentPassword)))
      throw new ValidationError('wrong_password', 'the current password is not correct', 'currentPassword');
    const passwordHash = await hashPassword(input.password);
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      { type: 'SetPassword', userId, passwordHash, reason: 'change', source },
      context,
    );
    return { id: userId, position: result.position };
  }
}
