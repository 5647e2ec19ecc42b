// Developer Settings: a user's own API keys. Each acts as that user (never an admin key), is granted only Agents the
// caller may use itself — asking for more is 403, not silently narrowed — and carries a usage limit, within the
// calling key's own when a key makes it (api-key.limits.ts). Revoking and rotating touch only one's own keys (another
// user's is 404).
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { newEntityId, type CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import {
  forbidden,
  permits,
  AgentDirectory,
  AgentAccess,
  UsageLimit,
  userActingAs,
  type PlatformPrincipal,
  type Principal,
} from '#access';
import { assertWithinOwnLimit } from '../../api-key.limits.js';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { IssueApiKey } from '../issue-api-key/issue-api-key.command.js';
import { RevokeApiKey } from '../revoke-api-key/revoke-api-key.command.js';

type Issued = WriteResult & { key: string | null };

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

/** The user whose keys these are (403 for a principal that is not a user). */
const ownerOf = (principal: Principal): string => {
  const userId = userActingAs(principal, 'this principal has no keys of its own');
  return userId;
};

const notAllAgents = () =>
  forbidden('agent_access_denied', 'a key granted every Agent needs a caller that reaches every Agent');

/** The caller's own (unrevoked) key, or 404 — also for another user's key, whose existence is not confirmed. */
async function ownKey(readStore: ReadStore, apiKeyId: string, userId: string): Promise<ApiKeyView> {
  const key = await readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
  if (!key || key.ownerUserId !== userId || key.revoked) throw new NotFoundError('API key', apiKeyId);
  return key;
}

@CommandHandler(CreateOwnApiKey)
export class CreateOwnApiKeyHandler implements ICommandHandler<CreateOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    private readonly agents: AgentDirectory,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ input, context, principal }: CreateOwnApiKey): Promise<Issued> {
    const userId = ownerOf(principal);
    await this.assertGrantable(input.agentAccess, principal);
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

  /** 403 unless the caller may use every Agent it asks for (and reaches every Agent, for "all"). */
  private async assertGrantable(access: AgentAccess, principal: Principal): Promise<void> {
    if (access.kind === 'all') {
      const reachesAll =
        principal.kind === 'session' || (principal.kind === 'apiKey' && principal.grants.kind === 'all');
      if (!reachesAll) throw notAllAgents();
      return;
    }
    const found = await this.agents.ownership(access.agentIds);
    for (const agentId of access.agentIds) {
      const agent = found.get(agentId);
      if (!agent || !permits(principal, 'agent.use', agent))
        throw forbidden('agent_access_denied', `you may not grant Agent '${agentId}'`);
    }
  }
}

@CommandHandler(RevokeOwnApiKey)
export class RevokeOwnApiKeyHandler implements ICommandHandler<RevokeOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ apiKeyId, context, principal }: RevokeOwnApiKey): Promise<WriteResult> {
    await ownKey(this.readStore, apiKeyId, ownerOf(principal));
    return this.bus.execute(new RevokeApiKey(apiKeyId, context, OWN_KEYS));
  }
}

@CommandHandler(RotateOwnApiKey)
export class RotateOwnApiKeyHandler implements ICommandHandler<RotateOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ apiKeyId, context, principal }: RotateOwnApiKey): Promise<Issued> {
    const userId = ownerOf(principal);
    const old = await ownKey(this.readStore, apiKeyId, userId);
    if (old.isAdmin)
      throw forbidden('admin_key_rotation', 'an admin-issued admin key is rotated by an admin');
    const issued: Issued = await this.bus.execute(
      new IssueApiKey(
        {
          name: old.name,
          owner: userId,
          agentAccess: old.agentAccess,
          isAdmin: false,
          usageLimit: old.usageLimit,
          apiKeyId: newEntityId(context, 'key'),
        },
        context,
        OWN_KEYS,
      ),
    );
    const revoked: WriteResult = await this.bus.execute(new RevokeApiKey(apiKeyId, context, OWN_KEYS));
    // The caller reads its writes up to the later one: the old key is refused from the response on.
    return { ...issued, position: Math.max(issued.position, revoked.position) };
  }
}
