// Signing in with an OpenID provider (the identity already verified by OidcSignIn). The identity linked to a user signs
// that user in. Otherwise: a `social` provider refuses (it never creates an account nor links by email); an `sso`
// provider accepts the pending invitation of the provider's email only when the provider says it is verified
// (registering the user, linking the identity and accepting the invitation), or makes a just-in-time member for the
// provider's `allowedDomains` when the provider allows it. An existing user is never linked by email (that is account
// takeover): they link the provider from their session. Each refusal is a SignInFailed event (no token in it).
import { AskedAtRoute, forbidden } from '#access';
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, UnauthorizedError, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import { identityIdOf, identityStreamId, type IdentityLinkVia } from '../../external-identity.events.js';
import { externalIdentityDecider } from '../../external-identity.decider.js';
import { invitationStreamId } from '../../invitation.events.js';
import { invitationDecider } from '../../invitation.decider.js';
import { INVITATIONS, type InvitationView } from '../../invitations.read-model.js';
import type { VerifiedIdentity } from '../../oidc/oidc-sign-in.js';
import { OidcSignIn } from '../../oidc/oidc-sign-in.js';
import { providerSignInStreamId, signInStreamId, type OidcFailure } from '../../session.events.js';
import { signInDecider } from '../../session.decider.js';
import { startSession } from '../../sessions/session.repository.js';
import { userStreamId, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { USERS, type UserView } from '../../users.read-model.js';
import { userIdOfInvitation } from '../accept-invitation/accept-invitation.command.js';
import { RegisterUser } from '../register-user/register-user.command.js';

@AskedAtRoute("public: the provider's verified identity is the credential")
export class SignInWithOidc extends Command<WriteResult & { secret: string; sessionId: string }> {
  constructor(
    readonly identity: VerifiedIdentity,
    readonly source: ChangeSource,
    /** The session the request came with, if any: revoked (the session id rotates at sign-in). */
    readonly previousSessionId: string | null,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** A single sign-on the provider answered for, refused before anything is known of the answer (state, token). */
@AskedAtRoute('public: a refused sign-in is recorded for whoever tried')
export class RecordOidcFailure extends Command<WriteResult> {
  constructor(
    readonly providerId: string,
    readonly reason: OidcFailure,
    readonly source: ChangeSource,
    readonly context: CommandContext,
  ) {
    super();
  }
}

const REFUSALS: Record<Exclude<OidcFailure, 'invalid_response' | 'invalid_state'>, () => Error> = {
  email_unverified: () =>
    forbidden(
      'oidc_email_unverified',
      'the provider does not say this email is verified: an invitation is accepted only for a verified email',
    ),
  identity_not_linked: () =>
    forbidden(
      'oidc_identity_not_linked',
      'no user is linked to this identity: accept an invitation, or link the provider from your settings',
    ),
  identity_linked_elsewhere: () =>
    forbidden('identity_linked_elsewhere', 'this identity of the provider is linked to another user'),
  email_taken: () =>
    forbidden(
      'oidc_identity_not_linked',
      'no user is linked to this identity: accept an invitation, or link the provider from your settings',
    ),
};

@CommandHandler(SignInWithOidc)
export class SignInWithOidcHandler implements ICommandHandler<SignInWithOidc> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    private readonly oidc: OidcSignIn,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ identity, source, previousSessionId, context }: SignInWithOidc) {
    const provider = this.oidc.provider(identity.providerId);
    const identityId = identityIdOf(identity.providerId, identity.subject);
    const linked = (await this.aggregates.load(identityStreamId(identityId), externalIdentityDecider)).state;
    let userId: string;
    if (linked.status === 'linked') {
      userId = linked.userId;
      const user = (await this.aggregates.load(userStreamId(userId), userDecider)).state;
      if (user.status !== 'active') {
        await this.fail(identity, userId, 'deactivated', source, context);
        throw new UnauthorizedError('user_deactivated', 'the account of this identity is deactivated');
      }
    } else {
      if (provider.kind === 'social') return this.refuse(identity, 'identity_not_linked', source, context);
      if (!identity.email || !identity.emailVerified)
        return this.refuse(identity, 'email_unverified', source, context);
      const email = identity.email;
      const existing = (await this.readStore.reader<UserView>(USERS).find({ email }, { limit: 1 })).data[0];
      if (existing) return this.refuse(identity, 'email_taken', source, context);
      const now = context.now();
      const invitation = (
        await this.readStore.reader<InvitationView>(INVITATIONS).find({ email }, { limit: 100 })
      ).data
        .filter((item) => item.status === 'pending' && Date.parse(item.expiresAt) > now.getTime())
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
      const domain = email.split('@')[1] ?? '';
      if (invitation) {
        userId = userIdOfInvitation(invitation.id);
        const asUser = { ...context, actor: { kind: 'user' as const, id: userId } };
        const accept = {
          type: 'AcceptInvitationBySignOn' as const,
          invitationId: invitation.id,
          verifiedEmail: email,
          providerId: provider.id,
          userId,
          now: now.toISOString(),
          source,
        };
        // Checked first, so a refused invitation changes nothing (the same decision runs again when appending).
        const state = (await this.aggregates.load(invitationStreamId(invitation.id), invitationDecider))
          .state;
        invitationDecider.decide(accept, state);
        if (state.status !== 'pending')
          throw new Error('unreachable: decide accepted a non-pending invitation');
        await this.register(userId, email, identity, state.role, invitation.id, source, asUser);
        await this.link(identity, userId, 'invitation', source, asUser);
        await this.aggregates.decide(invitationStreamId(invitation.id), invitationDecider, accept, asUser);
      } else if (provider.justInTime && provider.allowedDomains.includes(domain)) {
        userId = newEntityId(context, 'usr');
        const asUser = { ...context, actor: { kind: 'user' as const, id: userId } };
        await this.register(userId, email, identity, 'member', undefined, source, asUser);
        await this.link(identity, userId, 'justInTime', source, asUser);
      } else return this.refuse(identity, 'identity_not_linked', source, context);
    }
    const session = await startSession(
      this.aggregates,
      {
        userId,
        method: 'oidc',
        providerId: provider.id,
        absoluteMs: this.config.people.sessionAbsoluteMs,
        previousSessionId,
        source,
      },
      { ...context, actor: { kind: 'user', id: userId } },
    );
    return { id: userId, ...session };
  }

  private async register(
    userId: string,
    email: string,
    identity: VerifiedIdentity,
    role: 'admin' | 'member',
    invitationId: string | undefined,
    source: ChangeSource,
    context: CommandContext,
  ) {
    await this.bus.execute(
      new RegisterUser(
        {
          userId,
          email,
          name: identity.name ?? '',
          role,
          ...(invitationId ? { invitationId } : {}),
          source,
        },
        context,
      ),
    );
  }

  private link(
    identity: VerifiedIdentity,
    userId: string,
    via: IdentityLinkVia,
    source: ChangeSource,
    context: CommandContext,
  ) {
    return this.aggregates.decide(
      identityStreamId(identityIdOf(identity.providerId, identity.subject)),
      externalIdentityDecider,
      {
        type: 'LinkIdentity',
        providerId: identity.providerId,
        subject: identity.subject,
        userId,
        email: identity.email,
        via,
        source,
      },
      context,
    );
  }

  private async refuse(
    identity: VerifiedIdentity,
    reason: keyof typeof REFUSALS,
    source: ChangeSource,
    context: CommandContext,
  ): Promise<never> {
    await this.fail(identity, null, reason, source, context);
    throw REFUSALS[reason]();
  }

  private fail(
    identity: VerifiedIdentity,
    userId: string | null,
    reason: OidcFailure | 'deactivated',
    source: ChangeSource,
    context: CommandContext,
  ) {
    const email = identity.email ?? '';
    return this.aggregates.decide(
      email ? signInStreamId(email) : providerSignInStreamId(identity.providerId),
      signInDecider,
      { email, userId, reason, providerId: identity.providerId, source },
      context,
    );
  }
}

@CommandHandler(RecordOidcFailure)
export class RecordOidcFailureHandler implements ICommandHandler<RecordOidcFailure> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ providerId, reason, source, context }: RecordOidcFailure) {
    const result = await this.aggregates.decide(
      providerSignInStreamId(providerId),
      signInDecider,
      { email: '', userId: null, reason, providerId, source },
      context,
    );
    return { id: providerId, position: result.position };
  }
}
