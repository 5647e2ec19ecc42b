// Linking an OpenID provider's identity to the signed-in user (the explicit step a `social` provider needs before it
// signs anyone in), and unlinking it. The identity's decider refuses one linked to another user; a user has at most
// one identity per provider.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError, NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { ask, forbidden, Requires, userActingAs, type Principal } from '#access';
import { identityIdOf, identityStreamId } from '../../external-identity.events.js';
import { externalIdentityDecider } from '../../external-identity.decider.js';
import { Mailer } from '../../mail/mail.port.js';
import { mailOf } from '../../mail/mail-templates.js';
import { OidcSignIn, type VerifiedIdentity } from '../../oidc/oidc-sign-in.js';
import { userStreamId, type ChangeSource } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { IDENTITIES, type IdentityView } from '../../users.read-model.js';

const SESSION_ONLY = 'identities are linked and unlinked from a signed-in session';

/** `identity.link`: a signed-in session, for its own user. */
const linkFromSession = () => ask('identity.link', null, SESSION_ONLY);

@Requires(linkFromSession)
export class LinkIdentity extends Command<WriteResult> {
  constructor(
    readonly identity: VerifiedIdentity,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    /** The session that started the link (its user gets the identity). */
    readonly principal: Principal,
  ) {
    super();
  }
}

@Requires(linkFromSession)
export class UnlinkIdentity extends Command<WriteResult> {
  constructor(
    readonly providerId: string,
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

/** The session's own user (the gate asked `identity.link`). */
const linkingUser = (principal: Principal): string => userActingAs(principal, SESSION_ONLY);

@CommandHandler(LinkIdentity)
export class LinkIdentityHandler implements ICommandHandler<LinkIdentity> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly mailer: Mailer,
    private readonly oidc: OidcSignIn,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ identity, source, context, principal }: LinkIdentity) {
    const userId = linkingUser(principal);
    const user = (await this.aggregates.load(userStreamId(userId), userDecider)).state;
    // The account's state, as its decider refuses a deactivated user: no rule of who asks.
    if (user.status !== 'active') throw forbidden('user_deactivated', 'the account is deactivated');
    const identityId = identityIdOf(identity.providerId, identity.subject);
    const other = (
      await this.readStore
        .reader<IdentityView>(IDENTITIES)
        .find({ userId, providerId: identity.providerId }, { limit: 1 })
    ).data[0];
    if (other && other.id !== identityId)
      throw new ConflictError(
        'provider_already_linked',
        'another identity of this provider is linked to your user: unlink it first',
      );
    const result = await this.aggregates.decide(
      identityStreamId(identityId),
      externalIdentityDecider,
      {
        type: 'LinkIdentity',
        providerId: identity.providerId,
        subject: identity.subject,
        userId,
        email: identity.email,
        via: 'session',
        source,
      },
      context,
    );
    // A sign-in notice: a new way into the account is worth telling its owner about (not for a repeat).
    if (result.events.length > 0)
      await this.mailer.send(
        mailOf(
          {
            kind: 'sign-in-notice',
            provider: this.oidc.provider(identity.providerId).name,
            at: context.now().toISOString(),
          },
          user.email,
          user.language,
        ),
      );
    return { id: identityId, position: result.position };
  }
}

@CommandHandler(UnlinkIdentity)
export class UnlinkIdentityHandler implements ICommandHandler<UnlinkIdentity> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ providerId, source, context, principal }: UnlinkIdentity) {
    const userId = linkingUser(principal);
    const linked = (
      await this.readStore.reader<IdentityView>(IDENTITIES).find({ userId, providerId }, { limit: 1 })
    ).data[0];
    if (!linked) throw new NotFoundError('Identity', providerId);
    const result = await this.aggregates.decide(
      identityStreamId(linked.id),
      externalIdentityDecider,
      { type: 'UnlinkIdentity', providerId, subject: linked.subject, userId, source },
      context,
    );
    return { id: linked.id, position: result.position };
  }
}
