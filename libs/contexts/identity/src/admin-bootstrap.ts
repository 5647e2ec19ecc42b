// Makes a fresh instance usable at once: ADMIN_API_KEY becomes an admin key with access to every Agent, owned by the
// admin user. Ids derive from the key's hash, so restarts append nothing; an earlier bootstrap key (the variable was
// rotated) is revoked.
import { Inject, Injectable } from '@nestjs/common';
import type { PlatformPrincipal } from '#access';
import { CommandBus } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, sha256, SYSTEM_ACTOR, type PlatformConfig } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { ReadYourWritesBus } from '#eventsourcing';
import { API_KEYS, type ApiKeyView, API_KEYS_READ_MODEL as API_KEYS_MODEL } from './api-keys.read-model.js';
import { hashApiKey } from './api-key.secret.js';
import { IssueApiKey } from './commands/issue-api-key/issue-api-key.command.js';
import { RegisterUser } from './commands/register-user/register-user.command.js';
import { RevokeApiKey } from './commands/revoke-api-key/revoke-api-key.command.js';
import { USERS_READ_MODEL } from './users.read-model.js';

const BOOTSTRAP: PlatformPrincipal = { kind: 'platform', process: 'admin-bootstrap' };
@Injectable()
export class AdminBootstrap {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly sender: ReadYourWritesBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async run(): Promise<void> {
    const key = this.config.adminApiKey;
    if (!key) return;
    const context = { actor: SYSTEM_ACTOR, correlationId: 'bootstrap', now: () => new Date() };
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
