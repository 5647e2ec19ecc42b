// The users context's answer to the guard's Credentials port: whom an API key or a session cookie stands for, read
// from the keys, sessions and users read models through caches dropped whenever their projection applies a batch in
// this process (a revocation or a deactivation is then seen at once), trusted one second when another process runs it.
import { Inject, Injectable } from '@nestjs/common';
import { Credentials, type CredentialCaller, type SessionCredential } from '#access';
import { ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { PLATFORM_CONFIG, UnauthorizedError, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { hashApiKey } from '../api-key.secret.js';
import { API_KEYS, API_KEYS_READ_MODEL, type ApiKeyView } from '../api-keys.read-model.js';
import { sessionIdOf } from '../session.events.js';
import {
  endedWithItsUser,
  SESSIONS,
  USERS,
  USERS_READ_MODEL,
  type SessionView,
  type UserView,
} from '../users.read-model.js';
import { SessionClock } from './session-clock.js';
import { sessionSecretOf } from './session-cookie.js';
import { SessionUse } from './session-use.js';

@Injectable()
export class IdentityCredentials extends Credentials {
  private readonly known: ProjectionCache<ApiKeyView>;
  private readonly users: ProjectionCache<UserView>;
  private readonly sessions: ProjectionCache<SessionView>;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    runner: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly clock: SessionClock,
    private readonly sessionUse: SessionUse,
  ) {
    super();
    this.known = new ProjectionCache(runner, API_KEYS_READ_MODEL.projection);
    this.users = new ProjectionCache(runner, USERS_READ_MODEL.projection);
    this.sessions = new ProjectionCache(runner, USERS_READ_MODEL.projection);
  }

  sessionSecret = sessionSecretOf;

  async ofApiKey(key: string): Promise<CredentialCaller> {
    const keyHash = hashApiKey(key);
    const apiKey = await this.known.get(keyHash, async () => {
      const page = await this.readStore.reader<ApiKeyView>(API_KEYS).find({ keyHash }, { limit: 1 });
      return page.data[0];
    });
    if (!apiKey) throw new UnauthorizedError('invalid_api_key', 'the API key is not valid');
    if (apiKey.revoked) throw new UnauthorizedError('api_key_revoked', 'the API key has been revoked');
    const owner = await this.activeUser(apiKey.ownerUserId);
    return {
      apiKey,
      actor: { kind: 'apiKey', id: apiKey.id },
      userId: apiKey.ownerUserId,
      // An admin key acts as an admin only while its user is one: a demoted user's admin keys lose admin rights.
      isAdmin: apiKey.isAdmin && (owner?.role ?? 'admin') === 'admin',
      // The key acts as its user: an admin user's key (admin key or not) uses every Agent its grants allow.
      userIsAdmin: (owner?.role ?? (apiKey.isAdmin ? 'admin' : 'member')) === 'admin',
    };
  }

  /**
   * A live session (not revoked, within its absolute and idle timeouts, started after its user last signed out
   * everywhere or was deactivated) of an active user, acting as that user's key granted every Agent.
   */
  async ofSession(secret: string): Promise<SessionCredential> {
    const sessionId = sessionIdOf(secret);
    const session = await this.sessions.get(
      sessionId,
      async () => (await this.readStore.reader<SessionView>(SESSIONS).get(sessionId)) ?? undefined,
    );
    const refused = () => new UnauthorizedError('invalid_session', 'the session is over: sign in again');
    if (!session || session.revoked) throw refused();
    const now = this.clock.now();
    const { sessionIdleMs } = this.config.people;
    const lastSeen = Math.max(this.sessionUse.lastSeenAt(sessionId), Date.parse(session.lastSeenAt));
    if (now >= Date.parse(session.expiresAt) || now - lastSeen > sessionIdleMs) throw refused();
    const user = await this.user(session.userId);
    if (!user || user.status === 'deactivated') throw refused();
    if (endedWithItsUser(session, user)) throw refused();
    const isAdmin = user.role === 'admin';
    return {
      caller: {
        apiKey: {
          id: sessionId,
          name: 'session',
          ownerUserId: user.id,
          agentAccess: { kind: 'all' },
          isAdmin,
          usageLimit: null,
        },
        session: { id: sessionId },
        actor: { kind: 'user', id: user.id },
        userId: user.id,
        isAdmin,
      },
      used: () => this.sessionUse.used(sessionId, lastSeen, now),
    };
  }

  async requireActiveUser(userId: string): Promise<void> {
    await this.activeUser(userId);
  }

  private async activeUser(userId: string): Promise<UserView | undefined> {
    const user = await this.user(userId);
    if (user?.status === 'deactivated')
      throw new UnauthorizedError('user_deactivated', 'the account of this credential is deactivated');
    return user;
  }

  private user(userId: string): Promise<UserView | undefined> {
    return this.users.get(
      userId,
      async () => (await this.readStore.reader<UserView>(USERS).get(userId)) ?? undefined,
    );
  }
}
