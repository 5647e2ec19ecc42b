// Read model of API keys: what authentication looks up (by hash) and what GET /api-keys lists. Never the key itself.
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { Projector } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import {
  API_KEY_EVENT_TYPES,
  type AgentAccess,
  type ApiKeyEvent,
  type UsageLimit,
} from '../../libs/identity/src/api-key.events.js';

export interface ApiKeyView {
  readonly id: string;
  readonly name: string;
  readonly ownerUserId: string;
  readonly keyHash: string;
  readonly keyPrefix: string;
  readonly agentAccess: AgentAccess;
  readonly isAdmin: boolean;
  readonly usageLimit: UsageLimit | null;
  readonly bootstrap: boolean;
  readonly revoked: boolean;
  readonly revokedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const API_KEYS = 'api_keys';

export const apiKeysProjector: Projector = {
  name: 'api-keys',
  version: 1,
  collections: [
    {
      name: API_KEYS,
      indexes: [
        { fields: ['keyHash'], unique: true },
        { fields: ['createdAt'] },
        { fields: ['ownerUserId'] },
      ],
    },
  ],
  eventTypes: API_KEY_EVENT_TYPES,
  project(envelope: EventEnvelope): WriteOp[] {
    const event = envelope as unknown as ApiKeyEvent;
    const at = envelope.metadata.occurredAt;
    const id = event.data.apiKeyId;
    switch (event.type) {
      case 'ApiKeyIssued': {
        const { apiKeyId: _apiKeyId, ...fields } = event.data;
        const doc = { id, ...fields, revoked: false, revokedAt: null, createdAt: at, updatedAt: at };
        return [{ kind: 'upsert', collection: API_KEYS, doc }];
      }
      case 'ApiKeyRenamed':
        return [{ kind: 'patch', collection: API_KEYS, id, set: { name: event.data.name, updatedAt: at } }];
      case 'ApiKeyAgentAccessChanged':
        return [
          {
            kind: 'patch',
            collection: API_KEYS,
            id,
            set: { agentAccess: event.data.agentAccess, updatedAt: at },
          },
        ];
      case 'ApiKeyUsageLimitChanged':
        return [
          {
            kind: 'patch',
            collection: API_KEYS,
            id,
            set: { usageLimit: event.data.usageLimit, updatedAt: at },
          },
        ];
      case 'ApiKeyRevoked':
        return [
          { kind: 'patch', collection: API_KEYS, id, set: { revoked: true, revokedAt: at, updatedAt: at } },
        ];
    }
  },
};
