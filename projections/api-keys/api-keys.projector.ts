// Builds the API keys read model (libs/contexts/identity/src/api-keys.read-model.ts).
import { defineProjector } from '#eventsourcing';
import type { ApiKeyEvent } from '#identity';
import { API_KEYS, API_KEYS_READ_MODEL } from '#identity';

export const apiKeysProjector = defineProjector<ApiKeyEvent>({
  name: API_KEYS_READ_MODEL.projection,
  version: 1,
  collections: [API_KEYS_READ_MODEL],
  on: {
    ApiKeyIssued: ({ data: { apiKeyId: id, ...fields }, metadata: { occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: API_KEYS,
        doc: { id, ...fields, revoked: false, revokedAt: null, createdAt: at, updatedAt: at },
      },
    ],
    ApiKeyRenamed: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: API_KEYS,
        id: data.apiKeyId,
        set: { name: data.name, updatedAt: metadata.occurredAt },
      },
    ],
    ApiKeyAgentAccessChanged: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: API_KEYS,
        id: data.apiKeyId,
        set: { agentAccess: data.agentAccess, updatedAt: metadata.occurredAt },
      },
    ],
    ApiKeyUsageLimitChanged: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: API_KEYS,
        id: data.apiKeyId,
        set: { usageLimit: data.usageLimit, updatedAt: metadata.occurredAt },
      },
    ],
    ApiKeyRevoked: ({ data, metadata: { occurredAt: at } }) => [
      {
        kind: 'patch',
        collection: API_KEYS,
        id: data.apiKeyId,
        set: { revoked: true, revokedAt: at, updatedAt: at },
      },
    ],
  },
});
