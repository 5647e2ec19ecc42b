// Signing out: this session (POST /auth/sign-out), or every session of the user (POST /auth/sign-out-everywhere).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userActingAs, type Principal } from '#access';
import { sessionStreamId } from '../../session.events.js';
import { sessionDecider } from '../../session.decider.js';
import { userStreamId, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';

@AskedAtRoute('the route row asks user.self: one signs out only their own sessions')
export class SignOut extends Command<WriteResult> {
  constructor(
    readonly everywhere: boolean,
    /** The session the request came with (null for an API key: nothing to end). */
    readonly sessionId: string | null,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(SignOut)
export class SignOutHandler implements ICommandHandler<SignOut> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ everywhere, sessionId, source, context, principal }: SignOut) {
    const userId = userActingAs(principal);
    if (everywhere) {
      const result = await this.aggregates.decide(
        userStreamId(userId),
        userDecider,
        { type: 'SignOutEverywhere', userId, source },
        context,
      );
      return { id: userId, position: result.position };
    }
    if (!sessionId) return { id: userId, position: 0 };
    const result = await this.aggregates.decide(
      sessionStreamId(sessionId),
      sessionDecider,
      { type: 'RevokeSession', sessionId, source },
      context,
    );
    return { id: sessionId, position: result.position };
  }
}
