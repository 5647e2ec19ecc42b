// What issuing an API key names: read by its command and by what the gate asks of it (the ApiKeyResolver).
import type { AgentAccess, UsageLimit } from '#access';

export interface IssueApiKeyInput {
  readonly name: string;
  /** The owner: a user id, or an email registered as a user when new; the caller's owner by default. */
  readonly owner?: string | { readonly email: string; readonly name?: string | undefined };
  readonly agentAccess: AgentAccess;
  readonly isAdmin: boolean;
  readonly usageLimit: UsageLimit | null;
  /** Given for the bootstrap key (ADMIN_API_KEY); generated otherwise. */
  readonly key?: string;
  readonly apiKeyId?: string;
  readonly bootstrap?: boolean;
}
