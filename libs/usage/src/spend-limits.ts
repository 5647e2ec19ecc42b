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
import { AggregateRepository, ProjectionRunner } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { AGENTS, AGENTS_READ_MODEL, type AgentView } from '#agents';
import { spaceSpendDecider, spaceSpendStreamId } from './space-spend.js';
import {
  SPEND_LIMITS,
  SPEND_LIMITS_READ_MODEL,
  spendLimitId,
  type SpendLimitView,
  type SpendScope,
} from './spend-limits.read-model.js';
import { userSpendDecider, userSpendStreamId, type UserSpendLimit } from './user-spend.js';

/** How long an entry is trusted when this process does not run its projection itself. */
export const REMOTE_LIMIT_TTL_MS = 1_000;
const LOCAL_LIMIT_TTL_MS = 60_000;
const CACHE_LIMIT = 100_000;

/** Values read from one projection's read model, dropped whenever that projection applies a batch here. */
class Kept<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly at: number }>();
  private generation = 0;

  constructor(
    private readonly projection: string,
    private readonly runner: ProjectionRunner | undefined,
  ) {
    runner?.on('progress', (progress) => {
      if (progress.name !== projection || !progress.applied) return;
      this.generation++;
      this.entries.clear();
    });
  }

  /** Whether the projection runs here and is live (its read model is then current). */
  local(): boolean {
    return this.runner?.isLive(this.projection) ?? false;
  }

  async get(id: string, read: (local: boolean) => Promise<T>): Promise<T> {
    const local = this.local();
    const entry = this.entries.get(id);
    if (entry && Date.now() - entry.at <= (local ? LOCAL_LIMIT_TTL_MS : REMOTE_LIMIT_TTL_MS))
      return entry.value;
    const generation = this.generation;
    const value = await read(local);
    if (generation === this.generation) this.keep(id, value);
    return value;
  }

  set(id: string, value: T): void {
    this.generation++;
    this.keep(id, value);
  }

  private keep(id: string, value: T): void {
    this.entries.delete(id);
    if (this.entries.size >= CACHE_LIMIT) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { value, at: Date.now() });
  }
}

@Injectable()
export class SpendLimits {
  private readonly limits: Kept<UserSpendLimit | null>;
  private readonly spaces: Kept<string | null>;

  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Optional() runner?: ProjectionRunner,
  ) {
    this.limits = new Kept(SPEND_LIMITS_READ_MODEL.projection, runner);
    this.spaces = new Kept(AGENTS_READ_MODEL.projection, runner);
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
