// The caller's open sessions (GET /me/sessions): each by its handle, a hash of the session's id, because the id is
// what the log and the read model key the session by and never leaves the server; the newest first.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { sha256 } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AskedAtRoute, type Caller } from '#access';
import { SessionClock } from '../../sessions/session-clock.js';
import {
  endedWithItsUser,
  SESSIONS,
  USERS,
  type SessionView,
  type UserView,
} from '../../users.read-model.js';

/** What the routes call a session: not its id (the id names its log stream and the credentials cache's entry). */
export const sessionHandleOf = (sessionId: string): string =>
  `sh_${sha256(`handle\u0000${sessionId}`).slice(0, 32)}`;

export interface OwnSession {
  readonly id: string;
  readonly method: string;
  readonly device: string | null;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly expiresAt: string;
  readonly current: boolean;
}

/** The user's sessions still open at `now` (not revoked, not expired, not ended with all of the user's). */
export async function openSessionsOf(
  readStore: ReadStore,
  userId: string,
  now: number,
): Promise<SessionView[]> {
  const user = await readStore.reader<UserView>(USERS).get(userId);
  if (!user) return [];
  const sessions = await readStore
    .reader<SessionView>(SESSIONS)
    .find({ userId, revoked: false }, { limit: 500 });
  return sessions.data.filter(
    (session) => Date.parse(session.expiresAt) > now && !endedWithItsUser(session, user),
  );
}

@AskedAtRoute("the route row asks user.self: the caller's own sessions")
export class ListOwnSessions extends Query<{ data: OwnSession[] }> {
  constructor(readonly caller: Caller) {
    super();
  }
}

@QueryHandler(ListOwnSessions)
export class ListOwnSessionsHandler implements IQueryHandler<ListOwnSessions> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly clock: SessionClock,
  ) {}

  async execute({ caller }: ListOwnSessions) {
    const open = await openSessionsOf(this.readStore, caller.userId, this.clock.now());
    const data = open
      .toSorted((a, b) => b.createdAt.localeCompare(a.createdAt))
      .map((session) => ({
        id: sessionHandleOf(session.id),
        method: session.method,
        device: session.userAgent ?? null,
        createdAt: session.createdAt,
        lastSeenAt: session.lastSeenAt,
        expiresAt: session.expiresAt,
        current: session.id === caller.session?.id,
      }));
    return { data };
  }
}
