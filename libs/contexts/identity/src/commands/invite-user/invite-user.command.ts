// Inviting a person (admins): an email not yet a user's, an instance role and a single-use link that expires
// (INVITATION_TTL_HOURS). The token goes out through the mail port and in this answer once; the log keeps its hash.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { newEntityId, type CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { AskedAtRoute, userIdOf, type Principal } from '#access';
import { hashToken, invitationStreamId, newInvitationToken } from '../../invitation.events.js';
import { invitationDecider } from '../../invitation.decider.js';
import { Mailer } from '../../mail/mail.port.js';
import { mailOf } from '../../mail/mail-templates.js';
import type { ChangeSource, UserLanguage, UserRole } from '../../user.events.js';
import { USERS, type UserView } from '../../users.read-model.js';

@AskedAtRoute('the route row asks user.manage (admins)')
export class InviteUser extends Command<WriteResult & { link: string | null }> {
  constructor(
    readonly input: { readonly email: string; readonly role: UserRole; readonly language?: UserLanguage },
    readonly source: ChangeSource,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(InviteUser)
export class InviteUserHandler implements ICommandHandler<InviteUser> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly mailer: Mailer,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ input, source, context, principal }: InviteUser) {
    const email = input.email.toLowerCase();
    const taken = (await this.readStore.reader<UserView>(USERS).find({ email }, { limit: 1 })).data[0];
    if (taken) throw new ConflictError('email_taken', `'${email}' is already a user's email`, 'email');
    const invitationId = newEntityId(context, 'inv');
    const token = newInvitationToken(invitationId);
    const expiresAt = new Date(context.now().getTime() + this.config.people.invitationTtlMs).toISOString();
    const result = await this.aggregates.decide(
      invitationStreamId(invitationId),
      invitationDecider,
      {
        type: 'IssueInvitation',
        invitationId,
        email,
        role: input.role,
        tokenHash: hashToken(token),
        expiresAt,
        invitedByUserId: userIdOf(principal) ?? principal.kind,
        source,
      },
      context,
    );
    // A retried request whose invitation was issued before the process died sends nothing: that link was sent then.
    if (result.events.length === 0) return { id: invitationId, position: result.position, link: null };
    const link = `${this.config.people.publicUrl}/invitations/accept#token=${token}`;
    await this.mailer.send(mailOf({ kind: 'invitation', link, expiresAt }, email, input.language ?? 'en'));
    return { id: invitationId, position: result.position, link };
  }
}
