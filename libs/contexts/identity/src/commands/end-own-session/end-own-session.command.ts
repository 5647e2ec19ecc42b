// Ending one of one's own sessions by its handle (DELETE /me/sessions/{sessionId}): another browser one signed in
// with, or this one. A handle none of the caller's open sessions has is a 404: another person's session is not found.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userActingAs, type Principal } from '#access';
import { sessionDecider } from '../../session.decider.js';
import { sessionStreamId } from '../../session.events.js';
import { SessionClock } from '../../sessions/session-clock.js';
import { openSessionsOf, sessionHandleOf } from '../../queries/list-own-sessions/list-own-sessions.query.js';
import type { ChangeSource } from '../../user.events.js';

@AskedAtRoute("the route row asks user.self: only the caller's own sessions are looked at")
export class EndOwnSession extends Command<WriteResult> {
  constructor(
    readonly handle: string,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(EndOwnSession)
export class EndOwnSessionHandler implements ICommandHandler<EndOwnSession> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly clock: SessionClock,
  ) {}

  async execute({ handle, source, context, principal }: EndOwnSession) {
    const open = await openSessionsOf(this.readStore, userActingAs(principal), this.clock.now());
    const session = open.find((candidate) => sessionHandleOf(candidate.id) === handle);
    if (!session) throw new NotFoundError('Session', handle);
    const result = await this.aggregates.decide(
      sessionStreamId(session.id),
      sessionDecider,
      { type: 'RevokeSession', sessionId: session.id, source },
      context,
    );
    return { id: handle, position: result.position };
  }
}
