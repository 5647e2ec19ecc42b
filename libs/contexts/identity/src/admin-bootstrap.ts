// Makes a fresh instance usable at once. Without ADMIN_API_KEY, an instance with no user yet gets a one-time setup
// link: an admin invitation for ADMIN_EMAIL (name and password, or the organisation's sign-in), logged at start and
// answered by GET /health to admins; each start before it is used revokes the last one (only its hash is stored, so it
// cannot be shown again) and issues a new one. With ADMIN_API_KEY, the key becomes an admin key with access to every
// Agent, owned by the admin user; ids derive from the key's hash, so restarts append nothing; an earlier bootstrap key
// (the variable was rotated) is revoked; that admin gets a password by a reset link (POST /users/{userId}/password-reset).
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { PlatformPrincipal } from '#access';
import { CommandBus } from '@nestjs/cqrs';
import { LOGGER, PLATFORM_CONFIG, sha256, SYSTEM_ACTOR, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { ReadYourWritesBus, type CommandContext } from '#eventsourcing';
import { API_KEYS, type ApiKeyView, API_KEYS_READ_MODEL as API_KEYS_MODEL } from './api-keys.read-model.js';
import { hashApiKey } from './api-key.secret.js';
import { InviteUser } from './commands/invite-user/invite-user.command.js';
import { IssueApiKey } from './commands/issue-api-key/issue-api-key.command.js';
import { RegisterUser } from './commands/register-user/register-user.command.js';
import { RevokeApiKey } from './commands/revoke-api-key/revoke-api-key.command.js';
import { RevokeInvitation } from './commands/revoke-invitation/revoke-invitation.command.js';
import { INVITATIONS, INVITATIONS_READ_MODEL, type InvitationView } from './invitations.read-model.js';
import { USERS, USERS_READ_MODEL, type UserView } from './users.read-model.js';

const BOOTSTRAP: PlatformPrincipal = { kind: 'platform', process: 'admin-bootstrap' };
const NO_SOURCE = { address: null, userAgent: null };
/** What the setup invitation's `invitedByUserId` says (the platform, not a person, invited). */
const INVITED_BY_PLATFORM = 'platform';

/** The setup link of this start: the admin invitation's link (spent once accepted or revoked). */
export interface SetupLink {
  readonly link: string;
  readonly invitationId: string;
  readonly expiresAt: string;
}

@Injectable()
export class AdminBootstrap {
  private setup: SetupLink | null = null;

  constructor(
    private readonly commandBus: CommandBus,
    private readonly sender: ReadYourWritesBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(): Promise<void> {
    const context = { actor: SYSTEM_ACTOR, correlationId: 'bootstrap', now: () => new Date() };
    if (this.config.adminApiKey) await this.bootstrapKey(this.config.adminApiKey, context);
    else this.setup = await this.inviteFirstAdmin(context);
    if (this.setup)
      this.logger.warn(
        { setupLink: this.setup.link, expiresAt: this.setup.expiresAt },
        `first run: open ${this.setup.link} to create the admin account (one-time link)`,
      );
  }

  /** The setup link while it is unused (null once the admin has accepted it). */
  async pendingSetupLink(): Promise<SetupLink | null> {
    const setup = this.setup;
    if (!setup) return null;
    const invitation = await this.readStore.reader<InvitationView>(INVITATIONS).get(setup.invitationId);
    if (invitation?.status !== 'pending' || Date.parse(setup.expiresAt) <= Date.now()) this.setup = null;
    return this.setup;
  }

  private async inviteFirstAdmin(context: CommandContext): Promise<SetupLink | null> {
    if ((await this.readStore.reader<UserView>(USERS).find({}, { limit: 1 })).data.length > 0) return null;
    const email = this.config.adminEmail.toLowerCase();
    const earlier = await this.readStore
      .reader<InvitationView>(INVITATIONS)
      .find({ email, status: 'pending', invitedByUserId: INVITED_BY_PLATFORM });
    for (const old of earlier.data)
      await this.commandBus.execute(new RevokeInvitation(old.id, NO_SOURCE, context, BOOTSTRAP));
    const issued = await this.commandBus.execute(
      new InviteUser({ email, role: 'admin' }, NO_SOURCE, context, BOOTSTRAP),
    );
    await this.sender.settle(issued.position, [INVITATIONS_READ_MODEL]);
    const invitation = await this.readStore.reader<InvitationView>(INVITATIONS).get(issued.id);
    if (!issued.link || !invitation) return null;
    return { link: issued.link, invitationId: issued.id, expiresAt: invitation.expiresAt };
  }

  private async bootstrapKey(key: string, context: CommandContext): Promise<void> {
    const userId = `usr_admin_${sha256(this.config.adminEmail).slice(0, 24)}`;
    const user = await this.commandBus.execute(
      new RegisterUser({ userId, email: this.config.adminEmail, name: 'Admin', role: 'admin' }, context),
    );
    const apiKeyId = `key_admin_${sha256(hashApiKey(key)).slice(0, 24)}`;
    const issued = await this.commandBus.execute(
      new IssueApiKey(
        {
          apiKeyId,
          key,
          bootstrap: true,
          name: 'ADMIN_API_KEY',
          owner: userId,
          agentAccess: { kind: 'all' },
          isAdmin: true,
          usageLimit: null,
        },
        context,
        BOOTSTRAP,
      ),
    );
    await this.sender.settle(Math.max(user.position, issued.position), [API_KEYS_MODEL, USERS_READ_MODEL]);
    const stale = await this.readStore
      .reader<ApiKeyView>(API_KEYS)
      .find({ bootstrap: true, revoked: false, id: { $ne: apiKeyId } });
    for (const old of stale.data) await this.commandBus.execute(new RevokeApiKey(old.id, context, BOOTSTRAP));
  }
}
