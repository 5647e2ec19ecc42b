// Developer Settings: a user's own API keys. Each acts as that user (never an admin key), is granted only Agents the
// caller may use itself — asking for more is 403, not silently narrowed — and carries a usage limit, within the
// calling key's own when a key makes it (api-key.limits.ts). Revoking and rotating touch only one's own keys (another
// user's is 404).
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { READ_STORE, type ReadStore } from '#read-store';
import { newEntityId, type CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import {
  forbidden,
  Requires,
  AgentAccess,
  UsageLimit,
  userActingAs,
  type PlatformPrincipal,
  type Principal,
} from '#access';
import { ApiKeyResolver } from '../../api-key-resolver.js';
import { assertWithinOwnLimit } from '../../api-key.limits.js';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { IssueApiKey } from '../issue-api-key/issue-api-key.command.js';
import { RevokeApiKey } from '../revoke-api-key/revoke-api-key.command.js';
import { keyById, replaceApiKey } from '../rotate-api-key/replace-api-key.js';

type Issued = WriteResult & { key: string | null };

@Requires(ApiKeyResolver, (keys, { input }: CreateOwnApiKey) => keys.grantable(input.agentAccess))
export class CreateOwnApiKey extends Command<Issued> {
  constructor(
    readonly input: {
      readonly name: string;
      readonly agentAccess: AgentAccess;
      readonly usageLimit: UsageLimit;
    },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@Requires(ApiKeyResolver, (keys, { apiKeyId }: RevokeOwnApiKey) => keys.own(apiKeyId))
export class RevokeOwnApiKey extends Command<WriteResult> {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

/** A new key with the same name, grants and limit; the old one is revoked. */
@Requires(ApiKeyResolver, (keys, { apiKeyId }: RotateOwnApiKey) => keys.own(apiKeyId))
export class RotateOwnApiKey extends Command<Issued> {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

/** The inner key commands run as the platform: this handler authorized the user's request first. */
const OWN_KEYS: PlatformPrincipal = { kind: 'platform', process: 'own-api-keys' };

/** The user whose keys these are (the gate asked `apiKey.own`). */
const ownerOf = (principal: Principal): string =>
  userActingAs(principal, 'this principal has no keys of its own');

@CommandHandler(CreateOwnApiKey)
export class CreateOwnApiKeyHandler implements ICommandHandler<CreateOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ input, context, principal }: CreateOwnApiKey): Promise<Issued> {
    const userId = ownerOf(principal);
    if (principal.kind === 'apiKey') {
      const minting = await this.readStore.reader<ApiKeyView>(API_KEYS).get(principal.keyId);
      assertWithinOwnLimit(input.usageLimit, minting?.usageLimit ?? null);
    }
    return this.bus.execute(
      new IssueApiKey(
        {
          name: input.name,
          owner: userId,
          agentAccess: input.agentAccess,
          isAdmin: false,
          usageLimit: input.usageLimit,
          apiKeyId: newEntityId(context, 'key'),
        },
        context,
        OWN_KEYS,
      ),
    );
  }
}

@CommandHandler(RevokeOwnApiKey)
export class RevokeOwnApiKeyHandler implements ICommandHandler<RevokeOwnApiKey> {
  constructor(private readonly bus: CommandBus) {}

  execute({ apiKeyId, context }: RevokeOwnApiKey): Promise<WriteResult> {
    return this.bus.execute(new RevokeApiKey(apiKeyId, context, OWN_KEYS));
  }
}

@CommandHandler(RotateOwnApiKey)
export class RotateOwnApiKeyHandler implements ICommandHandler<RotateOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ apiKeyId, context }: RotateOwnApiKey): Promise<Issued> {
    // The gate asked that it is the caller's own and unrevoked.
    const old = await keyById(this.readStore, apiKeyId);
    // An admin key stays an admin's to rotate, whoever owns it: a rule of the key, not of who asks.
    if (old.isAdmin)
      throw forbidden('admin_key_rotation', 'an admin-issued admin key is rotated by an admin');
    return replaceApiKey(this.bus, old, context, OWN_KEYS);
  }
}
