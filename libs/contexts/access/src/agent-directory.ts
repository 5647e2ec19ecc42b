// The Agents identity must know of to decide a self-made key's grants (who owns them). A port: the agents context
// provides it (identity may not import a context that imports it).
import type { AgentOwnership } from './policy/policy.js';

export abstract class AgentDirectory {
  /** The ownership of each of these Agents that exists (missing ids are absent from the map). */
  abstract ownership(agentIds: readonly string[]): Promise<ReadonlyMap<string, AgentOwnership>>;
}
