// Signing in with a password: the same 401 for an unknown email, a wrong password, an account without a password or
// a deactivated one (argon2 runs in every case); failures are events (never the password) and rate limited per account
// and per source address. Success starts a new session (its secret goes to the cookie only).
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, UnauthorizedError, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { hashPassword, verifyPassword } from '../../password.js';
import { startSession } from '../../sessions/session.repository.js';
import { signInStreamId, type SignInEvent } from '../../session.events.js';
import { signInDecider } from '../../session.decider.js';
import { assertPasswordSignIn } from '../../sessions/password-sign-in.js';
import { SignInLimiter } from '../../sessions/sign-in-limiter.js';
import { userStreamId, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { USERS, type UserView } from '../../users.read-model.js';
import { AskedAtRoute } from '#access';

@AskedAtRoute('public: the password is the credential')
export class SignIn extends Command<WriteResult & { secret: string; sessionId: string }> {
  constructor(
    readonly input: { readonly email: string; readonly password: string },
    readonly source: ChangeSource,
    /** The session the request came with, if any: revoked (the session id rotates at sign-in). */
    readonly previousSessionId: string | null,
    /** The request's (a public route: the actor becomes the user, when the email is one's). */
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** A hash to verify against when there is no account, so that an unknown email costs what a wrong password does. */
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hashPassword(`decoy-${Math.random()}-password`));

@CommandHandler(SignIn)
export class SignInHandler implements ICommandHandler<SignIn> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly limiter: SignInLimiter,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ input, source, previousSessionId, context }: SignIn) {
    assertPasswordSignIn(this.config);
    const email = input.email.toLowerCase();
    await this.limiter.check(email, source.address);
    const user = (await this.readStore.reader<UserView>(USERS).find({ email }, { limit: 1 })).data[0];
    const state = user ? (await this.aggregates.load(userStreamId(user.id), userDecider)).state : null;
    const passwordHash = state && state.status !== 'absent' ? state.passwordHash : null;
    const matches = await verifyPassword(passwordHash ?? (await decoyHash()), input.password);
    const reason: SignInEvent['data']['reason'] | null = !user
      ? 'unknown_email'
      : !passwordHash
        ? 'no_password'
        : !matches
          ? 'wrong_password'
          : state?.status !== 'active'
            ? 'deactivated'
            : null;
    const systemContext: CommandContext = user
      ? { ...context, actor: { kind: 'user', id: user.id } }
      : context;
    if (reason || !user) {
      await this.limiter.fail(email, source.address);
      await this.aggregates.decide(
        signInStreamId(email),
        signInDecider,
        { email, userId: user?.id ?? null, reason: reason ?? 'unknown_email', source },
        systemContext,
      );
      throw new UnauthorizedError('invalid_credentials', 'the email or the password is wrong');
    }
    await this.limiter.succeed(email, source.address);
    const session = await startSession(
      this.aggregates,
      {
        userId: user.id,
        method: 'password',
        absoluteMs: this.config.people.sessionAbsoluteMs,
        previousSessionId,
        source,
      },
      systemContext,
    );
    return { id: user.id, ...session };
  }
}
