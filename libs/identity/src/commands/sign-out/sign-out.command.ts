// Signing out: this session (POST /auth/sign-out), or every session of the user (POST /auth/sign-out-everywhere).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { assertAllowed } from '../../access-policy.js';
import type { Caller } from '../../http/caller.js';
import { sessionDecider, sessionStreamId } from '../../session.events.js';
import { userDecider, userStreamId } from '../../user.events.js';

export class SignOut extends Command<WriteResult> {
  constructor(
    readonly everywhere: boolean,
    readonly context: CommandContext,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(SignOut)
export class SignOutHandler implements ICommandHandler<SignOut> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ everywhere, context, caller }: SignOut) {
    assertAllowed(caller, 'user.self', null, 'this principal is not a user');
    const source = caller.source ?? { address: null, userAgent: null };
    if (everywhere) {
      const result = await this.aggregates.decide(
        userStreamId(caller.userId),
        userDecider,
        { type: 'SignOutEverywhere', userId: caller.userId, source },
        context,
      );
      return { id: caller.userId, position: result.position };
    }
    if (!caller.session) return { id: caller.userId, position: 0 };
    const sessionId = caller.session.id;
    const result = await this.aggregates.decide(
      sessionStreamId(sessionId),
      sessionDecider,
      { type: 'RevokeSession', sessionId, source },
      context,
    );
    return { id: sessionId, position: result.position };
  }
}
