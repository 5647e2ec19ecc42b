// Password reset: an administrator issues a single-use link for a user (also the bootstrap admin's way to a password);
// it goes out through the mail port and in the answer once, the log keeps its hash. Using it sets the new password.
import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, ValidationError, type PlatformConfig } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, type Principal } from '#access';
import { hashToken } from '../../invitation.events.js';
import { Mailer } from '../../mail/mail.port.js';
import { mailOf } from '../../mail/mail-templates.js';
import { hashPassword } from '../../password.js';
import { assertPasswordSignIn } from '../../sessions/password-sign-in.js';
import { userStreamId, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';

const RESET_TOKEN = /^pwr_([A-Za-z0-9_-]{1,80})\.[A-Za-z0-9_-]{43}$/;

@AskedAtRoute('the route row asks user.manage (admins)')
export class IssuePasswordReset extends Command<WriteResult & { link: string; expiresAt: string }> {
  constructor(
    readonly userId: string,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@AskedAtRoute("public: the reset link's token is the credential")
export class ResetPassword extends Command<WriteResult> {
  constructor(
    readonly input: { readonly token: string; readonly password: string },
    readonly source: ChangeSource,
    /** The request's (a public route: the actor becomes the link's user). */
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(IssuePasswordReset)
export class IssuePasswordResetHandler implements ICommandHandler<IssuePasswordReset> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly mailer: Mailer,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ userId, source, context }: IssuePasswordReset) {
    assertPasswordSignIn(this.config);
    const token = `pwr_${userId}.${randomBytes(32).toString('base64url')}`;
    if (!RESET_TOKEN.test(token)) throw new ValidationError('invalid_user_id', 'not a user id', 'userId');
    const expiresAt = new Date(context.now().getTime() + this.config.people.passwordResetTtlMs).toISOString();
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      {
        type: 'IssuePasswordReset',
        userId,
        tokenHash: hashToken(token),
        expiresAt,
        source,
      },
      context,
    );
    const state = (await this.aggregates.load(userStreamId(userId), userDecider)).state;
    const link = `${this.config.people.publicUrl}/password-reset#token=${token}`;
    if (state.status !== 'absent')
      await this.mailer.send(
        mailOf({ kind: 'password-reset', link, expiresAt }, state.email, state.language),
      );
    return { id: userId, position: result.position, link, expiresAt };
  }
}

@CommandHandler(ResetPassword)
export class ResetPasswordHandler implements ICommandHandler<ResetPassword> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ input, source, context: request }: ResetPassword) {
    const userId = RESET_TOKEN.exec(input.token)?.[1];
    if (!userId)
      throw new ValidationError('invalid_reset_link', 'the password reset link is not valid', 'token');
    const context: CommandContext = {
      ...request,
      actor: { kind: 'user', id: userId },
    };
    const reset = { tokenHash: hashToken(input.token), now: context.now().toISOString() };
    // Checked before the (costly) hash; the same decision runs again when appending.
    const state = (await this.aggregates.load(userStreamId(userId), userDecider)).state;
    const check = {
      type: 'SetPassword' as const,
      userId,
      passwordHash: '',
      reason: 'reset' as const,
      reset,
      source,
    };
    if (state.status === 'absent')
      throw new ValidationError('invalid_reset_link', 'the password reset link is not valid', 'token');
    userDecider.decide(check, state);
    const passwordHash = await hashPassword(input.password);
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      { ...check, passwordHash },
      context,
    );
    return { id: userId, position: result.position };
  }
}
