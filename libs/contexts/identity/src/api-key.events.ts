// The API key aggregate. Only a SHA-256 hash of the key is ever stored; the key itself is shown once, at issue.
import type { DomainEvent } from '#kernel';
import type { AgentAccess, UsageLimit } from '#access';

type Id = { readonly apiKeyId: string };

export type ApiKeyEvent =
  | DomainEvent<
      'ApiKeyIssued',
      Id & {
        readonly name: string;
        readonly ownerUserId: string;
        readonly keyHash: string;
        /** The first characters of the key, shown in lists so people can tell keys apart. */
        readonly keyPrefix: string;
        readonly agentAccess: AgentAccess;
        readonly isAdmin: boolean;
        readonly usageLimit: UsageLimit | null;
        /** Issued from ADMIN_API_KEY at start-up rather than through the API. */
        readonly bootstrap: boolean;
      }
    >
  | DomainEvent<'ApiKeyRenamed', Id & { readonly name: string }>
  | DomainEvent<'ApiKeyAgentAccessChanged', Id & { readonly agentAccess: AgentAccess }>
  | DomainEvent<'ApiKeyUsageLimitChanged', Id & { readonly usageLimit: UsageLimit | null }>
  | DomainEvent<'ApiKeyRevoked', Id>;

export const apiKeyStreamId = (apiKeyId: string): string => `apikey-${apiKeyId}`;
