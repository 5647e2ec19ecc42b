// Issuing an API key (admins; the system for the bootstrap key). The secret is generated here, stored only hashed,
// and answered once. An admin's key for a person grants only Agents that person may use (the ApiKeyResolver's asks:
// 400 `grant_unusable` before a new owner is registered): a key whose every call would be 403 is not issued.
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { PlatformError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { newEntityId, type CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { Requires, userIdOf, type Principal } from '#access';
import { ApiKeyResolver, knownOwner } from '../../api-key-resolver.js';
import { apiKeyDecider } from '../../api-key.decider.js';
import { apiKeyStreamId } from '../../api-key.events.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../../api-key.secret.js';
import type { UserView } from '../../users.read-model.js';
import { RegisterUser } from '../register-user/register-user.command.js';
import type { IssueApiKeyInput } from './issue-api-key.input.js';

@Requires(ApiKeyResolver, (keys, { input, principal }: IssueApiKey) => keys.issue(input, principal))
export class IssueApiKey extends Command<WriteResult & { key: string | null }> {
  constructor(
    readonly input: IssueApiKeyInput,
    readonly context: CommandContext,
    /** The admin issuing it; the platform for the bootstrap key and a user's own key (checked before). */
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ input, context, principal }: IssueApiKey) {
    const known = await knownOwner(this.readStore, input, principal);
    const ownerUserId = await this.ownerOf(input, known, context, principal);
    const apiKeyId = input.apiKeyId ?? newEntityId(context, 'key');
    const key = input.key ?? generateApiKey();
    const result = await this.aggregates.decide(
      apiKeyStreamId(apiKeyId),
      apiKeyDecider,
      {
        type: 'IssueApiKey',
        apiKeyId,
        name: input.name,
        ownerUserId,
        keyHash: hashApiKey(key),
        keyPrefix: displayPrefix(key),
        agentAccess: input.agentAccess,
        isAdmin: input.isAdmin,
        usageLimit: input.usageLimit,
        bootstrap: input.bootstrap ?? false,
      },
      context,
    );
    // A retried request whose key was issued before the process died gets no secret: the one issued then is the key.
    const issuedNow =
      (result.events[0]?.data as { keyHash?: string } | undefined)?.keyHash === hashApiKey(key);
    return { id: apiKeyId, key: issuedNow ? key : null, position: result.position };
  }

  /** The owner's user id; an email not yet known registers its user (an admin when the key is an admin key). */
  private async ownerOf(
    input: IssueApiKey['input'],
    known: UserView | undefined,
    context: CommandContext,
    principal: Principal,
  ) {
    const owner = input.owner;
    if (typeof owner === 'string') return owner;
    if (!owner) {
      const userId = userIdOf(principal);
      if (!userId) throw new Error('a key the platform issues names its owner');
      return userId;
    }
    if (known) return known.id;
    const email = owner.email.toLowerCase();
    const registered = await this.bus
      .execute(
        new RegisterUser(
          { email, name: owner.name ?? '', role: input.isAdmin ? 'admin' : 'member' },
          context,
        ),
      )
      .catch((error: PlatformError) => {
        throw error.code === 'email_taken' ? Object.assign(error, { param: 'owner.email' }) : error;
      });
    return registered.id;
  }
}
