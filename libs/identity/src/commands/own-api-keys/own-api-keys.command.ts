// Developer Settings: a user's own API keys. Each acts as that user (never an admin key), is granted only Agents the
// caller may use itself — asking for more is 403, not silently narrowed — and carries a usage limit. Revoking and
// rotating touch only one's own keys (another user's is 404).
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ForbiddenError, NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { newEntityId, type CommandContext } from '#eventsourcing';
import type { WriteResult } from '#eventsourcing';
import { assertAllowed } from '../../access-policy.js';
import { AgentDirectory } from '../../agent-directory.js';
import type { AgentAccess, UsageLimit } from '../../api-key.events.js';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { authorize } from '../../authorization/policy.js';
import type { Caller } from '../../http/caller.js';
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
    readonly caller: Caller,
  ) {
    super();
  }
}

export class RevokeOwnApiKey extends Command<WriteResult> {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
    readonly caller: Caller,
  ) {
    super();
  }
}

/** A new key with the same name, grants and limit; the old one is revoked. */
export class RotateOwnApiKey extends Command<Issued> {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
    readonly caller: Caller,
  ) {
    super();
  }
}

const notAllAgents = () =>
  new ForbiddenError(
    'agent_access_denied',
    'a key granted every Agent needs a caller that reaches every Agent',
  );

/** The caller's own (unrevoked) key, or 404 — also for another user's key, whose existence is not confirmed. */
async function ownKey(readStore: ReadStore, apiKeyId: string, caller: Caller): Promise<ApiKeyView> {
  const key = await readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
  if (!key || key.ownerUserId !== caller.userId || key.revoked) throw new NotFoundError('API key', apiKeyId);
  return key;
}

@CommandHandler(CreateOwnApiKey)
export class CreateOwnApiKeyHandler implements ICommandHandler<CreateOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    private readonly agents: AgentDirectory,
  ) {}

  async execute({ input, context, caller }: CreateOwnApiKey): Promise<Issued> {
    assertAllowed(caller, 'apiKey.own', null, 'this principal has no keys of its own');
    await this.assertGrantable(input.agentAccess, caller);
    return this.bus.execute(
      new IssueApiKey(
        {
          name: input.name,
          owner: caller.userId,
          agentAccess: input.agentAccess,
          isAdmin: false,
          usageLimit: input.usageLimit,
          apiKeyId: newEntityId(context, 'key'),
        },
        context,
      ),
    );
  }

  /** 403 unless the caller may use every Agent it asks for (and reaches every Agent, for "all"). */
  private async assertGrantable(access: AgentAccess, caller: Caller): Promise<void> {
    if (access.kind === 'all') {
      const reachesAll = caller.session ? true : caller.apiKey.agentAccess.kind === 'all';
      if (!reachesAll) throw notAllAgents();
      return;
    }
    const found = await this.agents.ownership(access.agentIds);
    for (const agentId of access.agentIds) {
      const agent = found.get(agentId);
      if (!agent || !authorize(caller, 'agent.use', agent).allow)
        throw new ForbiddenError('agent_access_denied', `you may not grant Agent '${agentId}'`);
    }
  }
}

@CommandHandler(RevokeOwnApiKey)
export class RevokeOwnApiKeyHandler implements ICommandHandler<RevokeOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ apiKeyId, context, caller }: RevokeOwnApiKey): Promise<WriteResult> {
    assertAllowed(caller, 'apiKey.own', null, 'this principal has no keys of its own');
    await ownKey(this.readStore, apiKeyId, caller);
    return this.bus.execute(new RevokeApiKey(apiKeyId, context));
  }
}

@CommandHandler(RotateOwnApiKey)
export class RotateOwnApiKeyHandler implements ICommandHandler<RotateOwnApiKey> {
  constructor(
    private readonly bus: CommandBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ apiKeyId, context, caller }: RotateOwnApiKey): Promise<Issued> {
    assertAllowed(caller, 'apiKey.own', null, 'this principal has no keys of its own');
    const old = await ownKey(this.readStore, apiKeyId, caller);
    if (old.isAdmin)
      throw new ForbiddenError('admin_key_rotation', 'an admin-issued admin key is rotated by an admin');
    const issued: Issued = await this.bus.execute(
      new IssueApiKey(
        {
          name: old.name,
          owner: caller.userId,
          agentAccess: old.agentAccess,
          isAdmin: false,
          usageLimit: old.usageLimit,
          apiKeyId: newEntityId(context, 'key'),
        },
        context,
      ),
    );
    await this.bus.execute(new RevokeApiKey(apiKeyId, context));
    return issued;
  }
}
