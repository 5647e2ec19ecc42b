// Accepting an invitation (public; the link's token is the credential): the person becomes a user with the
// invitation's email and role, their name, password (argon2id) and language. Expired, reused, revoked and forged links,
// and an email taken meanwhile, fail before anything is appended. The user's id derives from the invitation, so a
// retry after a crash between the steps finishes them instead of making a second user.
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';
import { assertPasswordSignIn } from '../../sessions/password-sign-in.js';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { hashToken, invitationIdOf, invitationStreamId } from '../../invitation.events.js';
import { invitationDecider, type InvitationCommand } from '../../invitation.decider.js';
import { hashPassword } from '../../password.js';
import { startSession } from '../../sessions/session.repository.js';
import { userStreamId, type ChangeSource, type UserLanguage } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { RegisterUser } from '../register-user/register-user.command.js';
import { AskedAtRoute } from '#access';

@AskedAtRoute("public: the invitation link's token is the credential")
export class AcceptInvitation extends Command<WriteResult & { secret: string }> {
  constructor(
    readonly input: {
      readonly token: string;
      readonly name: string;
      readonly password: string;
      readonly language: UserLanguage;
    },
    readonly source: ChangeSource,
    /** The request's (a public route: the actor becomes the new user). */
    readonly context: CommandContext,
  ) {
    super();
  }
}

export const userIdOfInvitation = (invitationId: string) => `usr_${invitationId.replace(/^inv_/, '')}`;

@CommandHandler(AcceptInvitation)
export class AcceptInvitationHandler implements ICommandHandler<AcceptInvitation> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ input, source, context: request }: AcceptInvitation) {
    assertPasswordSignIn(this.config);
    const invitationId = invitationIdOf(input.token);
    if (!invitationId)
      throw new PlatformError(
        'validation',
        'invalid_invitation',
        'the invitation link is not valid',
        'token',
      );
    const userId = userIdOfInvitation(invitationId);
    const context: CommandContext = { ...request, actor: { kind: 'user', id: userId } };
    const accept: InvitationCommand = {
      type: 'AcceptInvitation',
      invitationId,
      tokenHash: hashToken(input.token),
      userId,
      now: context.now().toISOString(),
      source,
    };
    // Checked first, so a refused link changes nothing (the same decision runs again when appending).
    const invitation = await this.aggregates.load(invitationStreamId(invitationId), invitationDecider);
    invitationDecider.decide(accept, invitation.state);
    if (invitation.state.status !== 'pending')
      throw new Error('unreachable: decide accepted a non-pending invitation');
    const passwordHash = await hashPassword(input.password);
    await this.bus.execute(
      new RegisterUser(
        {
          userId,
          email: invitation.state.email,
          name: input.name,
          role: invitation.state.role,
          language: input.language,
          invitationId,
          source,
        },
        context,
      ),
    );
    await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      { type: 'SetPassword', userId, passwordHash, reason: 'invitation', source },
      context,
    );
    await this.aggregates.decide(invitationStreamId(invitationId), invitationDecider, accept, context);
    // Accepting signs the person in.
    const session = await startSession(
      this.aggregates,
      {
        userId,
        method: 'invitation',
        absoluteMs: this.config.people.sessionAbsoluteMs,
        previousSessionId: null,
        source,
      },
      context,
    );
    return { id: userId, position: session.position, secret: session.secret };
  }
}
