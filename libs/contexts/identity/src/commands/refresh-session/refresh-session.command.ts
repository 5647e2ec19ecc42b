// Recording that a session was used (SessionRefreshed), which moves its idle timeout: sent by IdentityCredentials (asked by the guard) now and
// then for a session cookie it has just authenticated (a quarter of the idle timeout after the stored time). No
// principal: the guard is the authentication. A session that is over (revoked, expired) records nothing (the
// decider's).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { sessionStreamId } from '../../session.events.js';
import { sessionDecider } from '../../session.decider.js';
import { AskedAtRoute } from '#access';

@AskedAtRoute('no route sends it: the guard, authenticating the session, records its use')
export class RefreshSession extends Command<WriteResult> {
  constructor(
    readonly sessionId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RefreshSession)
export class RefreshSessionHandler implements ICommandHandler<RefreshSession> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ sessionId, context }: RefreshSession): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      sessionStreamId(sessionId),
      sessionDecider,
      { type: 'RefreshSession', sessionId },
      context,
    );
    return { id: sessionId, position: result.position };
  }
}
