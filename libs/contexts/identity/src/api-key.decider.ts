// API key commands and the pure decision over them.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import type { ApiKeyEvent } from './api-key.events.js';
import { AgentAccess, UsageLimit } from '#access';

export type ApiKeyState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'active' | 'revoked';
      readonly name: string;
      readonly keyHash: string;
      readonly agentAccess: AgentAccess;
      readonly usageLimit: UsageLimit | null;
    };

type IssuedData = Extract<ApiKeyEvent, { type: 'ApiKeyIssued' }>['data'];

export type ApiKeyCommand =
  | ({ readonly type: 'IssueApiKey' } & IssuedData)
  | {
      readonly type: 'ChangeApiKey';
      readonly apiKeyId: string;
      readonly name?: string;
      readonly agentAccess?: AgentAccess;
      readonly usageLimit?: UsageLimit | null;
      /** Sets a limit only on a key that has none (POST /cost-control): a limit already set is a conflict. */
      readonly onlyIfNoUsageLimit?: boolean;
    }
  | { readonly type: 'RevokeApiKey'; readonly apiKeyId: string };

const sameAccess = (a: AgentAccess, b: AgentAccess): boolean =>
  a.kind === b.kind &&
  (a.kind === 'all' ||
    (b.kind === 'agents' &&
      a.agentIds.length === b.agentIds.length &&
      a.agentIds.every((id, i) => id === b.agentIds[i])));

const sameLimit = (a: UsageLimit | null, b: UsageLimit | null): boolean =>
  a === b ||
  (a !== null && b !== null && a.tokens === b.tokens && a.costUsd === b.costUsd && a.window === b.window);

function checkLimit(limit: UsageLimit | null | undefined): void {
  if (limit && limit.tokens === null && limit.costUsd === null)
    throw new ValidationError('invalid_usage_limit', 'a usage limit needs tokens or costUsd', 'usageLimit');
}

export function decideApiKey(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  switch (command.type) {
    case 'IssueApiKey': {
      if (state.status !== 'absent') {
        if (state.keyHash === command.keyHash) return [];
        throw new ConflictError('api_key_exists', `API key '${command.apiKeyId}' already exists`);
      }
      if (command.name.trim().length === 0)
        throw new ValidationError('invalid_name', 'name must not be empty', 'name');
      checkLimit(command.usageLimit);
      // Field by field: the stored event's shape is its own (api-key.events.ts), never whatever the command carries.
      return [
        {
          type: 'ApiKeyIssued',
          data: {
            apiKeyId: command.apiKeyId,
            name: command.name.trim(),
            ownerUserId: command.ownerUserId,
            keyHash: command.keyHash,
            keyPrefix: command.keyPrefix,
            agentAccess: command.agentAccess,
            isAdmin: command.isAdmin,
            usageLimit: command.usageLimit,
            bootstrap: command.bootstrap,
          },
        },
      ];
    }
    case 'ChangeApiKey': {
      if (state.status !== 'active') throw new NotFoundError('API key', command.apiKeyId);
      if (command.onlyIfNoUsageLimit && state.usageLimit)
        throw new ConflictError(
          'usage_limit_exists',
          `API key '${command.apiKeyId}' already has a usage limit; PUT replaces it`,
        );
      checkLimit(command.usageLimit);
      const { apiKeyId } = command;
      const events: ApiKeyEvent[] = [];
      const name = command.name?.trim();
      if (name !== undefined && name.length === 0)
        throw new ValidationError('invalid_name', 'name must not be empty', 'name');
      if (name !== undefined && name !== state.name)
        events.push({ type: 'ApiKeyRenamed', data: { apiKeyId, name } });
      if (command.agentAccess && !sameAccess(command.agentAccess, state.agentAccess))
        events.push({
          type: 'ApiKeyAgentAccessChanged',
          data: { apiKeyId, agentAccess: command.agentAccess },
        });
      if (command.usageLimit !== undefined && !sameLimit(command.usageLimit, state.usageLimit))
        events.push({ type: 'ApiKeyUsageLimitChanged', data: { apiKeyId, usageLimit: command.usageLimit } });
      return events;
    }
    case 'RevokeApiKey':
      if (state.status === 'absent') throw new NotFoundError('API key', command.apiKeyId);
      return state.status === 'revoked'
        ? []
        : [{ type: 'ApiKeyRevoked', data: { apiKeyId: command.apiKeyId } }];
  }
}

export function evolveApiKey(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyIssued':
      return {
        status: 'active',
        name: event.data.name,
        keyHash: event.data.keyHash,
        agentAccess: event.data.agentAccess,
        usageLimit: event.data.usageLimit,
      };
    case 'ApiKeyRenamed':
      return state.status === 'absent' ? state : { ...state, name: event.data.name };
    case 'ApiKeyAgentAccessChanged':
      return state.status === 'absent' ? state : { ...state, agentAccess: event.data.agentAccess };
    case 'ApiKeyUsageLimitChanged':
      return state.status === 'absent' ? state : { ...state, usageLimit: event.data.usageLimit };
    case 'ApiKeyRevoked':
      return state.status === 'absent' ? state : { ...state, status: 'revoked' };
  }
}

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveApiKey,
  decide: decideApiKey,
};
