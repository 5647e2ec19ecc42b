// The users' and Spaces' spend limits in memory, so admitting a model call reads no store (issue 27 §3: the gateway
// read the user's spend stream on every call, and an absent one was never cached). Where this process runs the
// spend-limits projection and it is live, a limit is read once from its read model and kept until the projection
// applies a batch here (a UserSpendLimitChanged or SpaceSpendLimitChanged: every entry is dropped and read again),
// at most a minute; elsewhere (the projection runs in another process) the limit is read from its stream — the log,
// which no read model lags — and trusted for one second. The command handler that changes a limit puts the new one
// here at once, so in the process that took the change it applies to the next call. A generation counter keeps a
// read that raced with a change from caching what it read. The Space an Agent is in (a call for an Agent counts
// toward its Space) is kept the same way, from the agents read model.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { AggregateRepository, ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { AGENTS, AGENTS_READ_MODEL, type AgentView } from '#agents';
import { spaceSpendStreamId } from './space-spend.js';
import { spaceSpendDecider } from './space-spend.decider.js';
import {
  SPEND_LIMITS,
  SPEND_LIMITS_READ_MODEL,
  spendLimitId,
  type SpendLimitView,
  type SpendScope,
} from './spend-limits.read-model.js';
import { userSpendStreamId, type UserSpendLimit } from './user-spend.js';
import { userSpendDecider } from './user-spend.decider.js';

/** How long an entry is trusted when this process does not run its projection itself. */
export const REMOTE_LIMIT_TTL_MS = 1_000;
const CACHE_LIMIT = 100_000;

@Injectable()
export class SpendLimits {
  private readonly limits: ProjectionCache<UserSpendLimit | null>;
  private readonly spaces: ProjectionCache<string | null>;

  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Optional() runner?: ProjectionRunner,
  ) {
    const options = { remoteTtlMs: REMOTE_LIMIT_TTL_MS, limit: CACHE_LIMIT };
    this.limits = new ProjectionCache(runner, SPEND_LIMITS_READ_MODEL.projection, options);
    this.spaces = new ProjectionCache(runner, AGENTS_READ_MODEL.projection, options);
  }

  /** The user's (or Space's) weekly limit; null: none. */
  of(scope: SpendScope, subject: string): Promise<UserSpendLimit | null> {
    return this.limits.get(spendLimitId(scope, subject), (local) =>
      local ? this.fromReadModel(spendLimitId(scope, subject)) : this.fromLog(scope, subject),
    );
  }

  /** A limit this process has just changed (its command handler): it applies to the next call. */
  changed(scope: SpendScope, subject: string, limit: UserSpendLimit | null): void {
    this.limits.set(spendLimitId(scope, subject), limit);
  }

  /** The Space the Agent is in (null: none, or no such Agent). */
  spaceOfAgent(agentId: string): Promise<string | null> {
    return this.spaces.get(
      agentId,
      async () => (await this.readStore.reader<AgentView>(AGENTS).get(agentId))?.spaceId ?? null,
    );
  }

  private async fromReadModel(id: string): Promise<UserSpendLimit | null> {
    const view = await this.readStore.reader<SpendLimitView>(SPEND_LIMITS).get(id);
    return view?.limit ?? null;
  }

  private async fromLog(scope: SpendScope, subject: string): Promise<UserSpendLimit | null> {
    if (scope === 'user')
      return (await this.aggregates.load(userSpendStreamId(subject), userSpendDecider)).state.limit;
    return (await this.aggregates.load(spaceSpendStreamId(subject), spaceSpendDecider)).state.limit;
  }
}
