// What a credential grants, as the key a request acts through: the Agents it may use and its usage limit.

/** The Agents a key is granted: all, or the ones listed. */
export type AgentAccess =
  { readonly kind: 'all' } | { readonly kind: 'agents'; readonly agentIds: readonly string[] };

/** A key's usage limit: tokens and/or cost per window. */
export interface UsageLimit {
  /** Tokens (input + output) allowed per window; null when not limited by tokens. */
  readonly tokens: number | null;
  /** Cost in USD allowed per window; null when not limited by cost. */
  readonly costUsd: number | null;
  readonly window: 'day' | 'week' | 'month';
}

/** What a request's credential stands for as a key: its id, owner, grants, admin flag and usage limit. */
export interface CallerKey {
  readonly id: string;
  readonly name: string;
  readonly ownerUserId: string;
  readonly agentAccess: AgentAccess;
  readonly isAdmin: boolean;
  readonly usageLimit: UsageLimit | null;
}
