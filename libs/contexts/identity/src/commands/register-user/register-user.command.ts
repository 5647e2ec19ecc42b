// Registering a user: the email is claimed first (unique across users). Sent by the admin bootstrap and by issuing a
// key for a new owner; a repeat with the same derived id appends nothing (`created` says whether it did).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { PlatformError } from '#kernel';
import { claimUnique, newEntityId, type CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { userStreamId, type ChangeSource, type UserLanguage, type UserRole } from '../../user.events.js';
import { userDecider } from '../../user.decider.js';
import { AskedAtRoute } from '#access';

@AskedAtRoute(
  'no route sends it: the admin bootstrap, an accepted invitation, an SSO sign-in and an issued key register their user, each asked before',
)
export class RegisterUser extends Command<WriteResult & { created: boolean }> {
  constructor(
    readonly input: {
      readonly email: string;
      readonly name: string;
      readonly role: UserRole;
      readonly userId?: string;
      readonly language?: UserLanguage;
      readonly invitationId?: string;
      readonly source?: ChangeSource;
    },
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RegisterUser)
export class RegisterUserHandler implements ICommandHandler<RegisterUser> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ input, context }: RegisterUser) {
    const userId = input.userId ?? newEntityId(context, 'usr');
    const email = input.email.toLowerCase();
    await claimUnique(
      this.aggregates.store,
      'email',
      email,
      userId,
      async (holder) =>
        (await this.aggregates.load(userStreamId(holder), userDecider)).state.status === 'active',
      context,
    ).catch((error: PlatformError) => {
      throw error.code === 'email_taken' ? Object.assign(error, { param: 'email' }) : error;
    });
    const result = await this.aggregates.decide(
      userStreamId(userId),
      userDecider,
      { type: 'RegisterUser', userId, ...input, email },
      context,
    );
    return { id: userId, position: result.position, created: result.events.length > 0 };
  }
}
