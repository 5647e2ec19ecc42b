// The API keys read model: what authentication looks up (by hash) and what GET /api-keys lists. Never the key
// itself. Built by projections/api-keys.
import { defineReadModel } from '#eventsourcing';
import { AgentAccess, UsageLimit } from '#access';

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

export const API_KEYS_READ_MODEL = defineReadModel<ApiKeyView>({
  name: API_KEYS,
  projection: 'api-keys',
  indexes: [{ fields: ['keyHash'], unique: true }, { fields: ['createdAt'] }, { fields: ['ownerUserId'] }],
});
