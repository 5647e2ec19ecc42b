// Identity commands (register a user, issue/change/revoke an API key) and their thin handlers over the command runner.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type PlatformError } from '#kernel';
import { newEntityId, type CommandContext, claimUnique } from '#eventsourcing';
import { CommandRunner } from '#platform';
import { apiKeyDecider, type ApiKeyCommand } from '../api-key.decider.js';
import { apiKeyStreamId, type AgentAccess, type UsageLimit } from '../api-key.events.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../api-key.secret.js';
import { userDecider, userStreamId, type UserRole } from '../user.events.js';

export interface WriteResult {
  readonly id: string;
  readonly position: number;
}

export class RegisterUser {
  constructor(
    readonly input: {
      readonly email: string;
      readonly name: string;
      readonly role: UserRole;
      readonly userId?: string;
    },
    readonly context: CommandContext,
  ) {}
}

export class IssueApiKey {
  constructor(
    readonly input: {
      readonly name: string;
      readonly ownerUserId: string;
      readonly agentAccess: AgentAccess;
      readonly isAdmin: boolean;
      readonly usageLimit: UsageLimit | null;
      /** Given for the bootstrap key (ADMIN_API_KEY); generated otherwise. */
      readonly key?: string;
      readonly apiKeyId?: string;
      readonly bootstrap?: boolean;
    },
    readonly context: CommandContext,
  ) {}
}

export class ChangeApiKey {
  constructor(
    readonly input: Omit<Extract<ApiKeyCommand, { type: 'ChangeApiKey' }>, 'type'>,
    readonly context: CommandContext,
  ) {}
}

export class RevokeApiKey {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
  ) {}
}

@CommandHandler(RegisterUser)
export class RegisterUserHandler implements ICommandHandler<
  RegisterUser,
  WriteResult & { created: boolean }
> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ input, context }: RegisterUser) {
    const userId = input.userId ?? newEntityId(context, 'usr');
    const email = input.email.toLowerCase();
    await claimUnique(
      this.commands.store,
      'email',
      email,
      userId,
      async (holder) =>
        (await this.commands.load(userStreamId(holder), userDecider)).state.status === 'active',
      context,
    ).catch((error: PlatformError) => {
      throw error.code === 'email_taken' ? Object.assign(error, { param: 'email' }) : error;
    });
    const result = await this.commands.run(
      userStreamId(userId),
      userDecider,
      { type: 'RegisterUser', userId, ...input, email },
      context,
    );
    return { id: userId, position: result.position, created: result.events.length > 0 };
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<
  IssueApiKey,
  WriteResult & { key: string | null }
> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ input, context }: IssueApiKey) {
    const apiKeyId = input.apiKeyId ?? newEntityId(context, 'key');
    const key = input.key ?? generateApiKey();
    const result = await this.commands.run(
      apiKeyStreamId(apiKeyId),
      apiKeyDecider,
      {
        type: 'IssueApiKey',
        apiKeyId,
        name: input.name,
        ownerUserId: input.ownerUserId,
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
}

@CommandHandler(ChangeApiKey)
export class ChangeApiKeyHandler implements ICommandHandler<ChangeApiKey, WriteResult> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ input, context }: ChangeApiKey) {
    const result = await this.commands.run(
      apiKeyStreamId(input.apiKeyId),
      apiKeyDecider,
      { type: 'ChangeApiKey', ...input },
      context,
    );
    return { id: input.apiKeyId, position: result.position };
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey, WriteResult> {
  constructor(private readonly commands: CommandRunner) {}

  async execute({ apiKeyId, context }: RevokeApiKey) {
    const result = await this.commands.run(
      apiKeyStreamId(apiKeyId),
      apiKeyDecider,
      { type: 'RevokeApiKey', apiKeyId },
      context,
    );
    return { id: apiKeyId, position: result.position };
  }
}

export const IDENTITY_COMMAND_HANDLERS = [
  RegisterUserHandler,
  IssueApiKeyHandler,
  ChangeApiKeyHandler,
  RevokeApiKeyHandler,
];
