// Rotating a key, whoever asks (its owner in Developer Settings, an admin for any key): a new key with the same name,
// owner, grants, admin rights and usage limit, then the old one revoked.
import type { CommandBus } from '@nestjs/cqrs';
import { NotFoundError } from '#kernel';
import type { ReadStore } from '#read-store';
import { newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { API_KEYS, type ApiKeyView } from '../../api-keys.read-model.js';
import { IssueApiKey } from '../issue-api-key/issue-api-key.command.js';
import { RevokeApiKey } from '../revoke-api-key/revoke-api-key.command.js';

export type IssuedKey = WriteResult & { key: string | null };

/** The key, or 404. */
export async function keyById(readStore: ReadStore, apiKeyId: string): Promise<ApiKeyView> {
  const key = await readStore.reader<ApiKeyView>(API_KEYS).get(apiKeyId);
  if (!key) throw new NotFoundError('API key', apiKeyId);
  return key;
}

export async function replaceApiKey(
  bus: CommandBus,
  old: ApiKeyView,
  context: CommandContext,
  principal: Principal,
): Promise<IssuedKey> {
  const issued: IssuedKey = await bus.execute(
    new IssueApiKey(
      {
        name: old.name,
        owner: old.ownerUserId,
        agentAccess: old.agentAccess,
        isAdmin: old.isAdmin,
        usageLimit: old.usageLimit,
        apiKeyId: newEntityId(context, 'key'),
      },
      context,
      principal,
    ),
  );
  const revoked: WriteResult = await bus.execute(new RevokeApiKey(old.id, context, principal));
  // The caller reads its writes up to the later one: the old key is refused from the response on.
  return { ...issued, position: Math.max(issued.position, revoked.position) };
}
