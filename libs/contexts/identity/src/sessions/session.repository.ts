// The session write repository, for the handlers that sign someone in (password, invitation, single sign-on): the
// session the request came with is revoked (the id rotates at sign-in), a new secret is made for the cookie, and only
// its hash reaches the log.
import type { AggregateRepository, CommandContext } from '#eventsourcing';
import { newSessionSecret, sessionIdOf, sessionStreamId, type SessionMethod } from '../session.events.js';
import { sessionDecider } from '../session.decider.js';
import type { ChangeSource } from '../user.events.js';

export interface StartedSession {
  readonly secret: string;
  readonly sessionId: string;
  readonly position: number;
}

export async function startSession(
  aggregates: AggregateRepository,
  start: {
    readonly userId: string;
    readonly method: SessionMethod;
    readonly providerId?: string;
    readonly absoluteMs: number;
    readonly previousSessionId: string | null;
    readonly source: ChangeSource;
  },
  context: CommandContext,
): Promise<StartedSession> {
  const { source } = start;
  if (start.previousSessionId)
    await aggregates.decide(
      sessionStreamId(start.previousSessionId),
      sessionDecider,
      { type: 'RevokeSession', sessionId: start.previousSessionId, source },
      context,
    );
  const secret = newSessionSecret();
  const sessionId = sessionIdOf(secret);
  const result = await aggregates.decide(
    sessionStreamId(sessionId),
    sessionDecider,
    {
      type: 'StartSession',
      sessionId,
      userId: start.userId,
      method: start.method,
      ...(start.providerId ? { providerId: start.providerId } : {}),
      expiresAt: new Date(context.now().getTime() + start.absoluteMs).toISOString(),
      source,
    },
    context,
  );
  return { secret, sessionId, position: result.position };
}
