// Values read from one projection's read model, kept in memory so that a hot read (an API key on every request, a
// spend limit on every model call, an Agent's Skills on every turn) costs no read-store query. Where this process runs
// the projection and it is live, an entry is kept until that projection applies a batch here (every entry is dropped
// then: the runner emits its progress synchronously, before any read-your-writes wait on that batch can end, so a
// command's caller never reads what its own command changed from here), at most `localTtlMs`; where the projection runs
// in another process, for `remoteTtlMs` (0: not kept). A generation counter keeps a read that raced with a batch (or
// with `set`) from keeping what it read. `undefined` is never kept: it is "not found, ask again". A value read from
// several projections' read models is kept as above for all of them: local only while every one is live here, dropped
// when any applies a batch.
import type { ProjectionRunner } from './projection-runner.js';

export interface ProjectionCacheOptions {
  /** How long an entry is trusted while the projection is live in this process (default one minute). */
  readonly localTtlMs?: number;
  /** How long an entry is trusted when this process does not run the projection (default one second; 0: never). */
  readonly remoteTtlMs?: number;
  /** Entries at most; the oldest goes first (default 10,000). */
  readonly limit?: number;
}

export class ProjectionCache<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly at: number }>();
  private generation = 0;
  private readonly localTtlMs: number;
  private readonly remoteTtlMs: number;
  private readonly limit: number;

  private readonly projections: readonly string[];

  constructor(
    private readonly runner: Pick<ProjectionRunner, 'on' | 'isLive'> | undefined,
    projection: string | readonly string[],
    options: ProjectionCacheOptions = {},
  ) {
    this.projections = typeof projection === 'string' ? [projection] : projection;
    this.localTtlMs = options.localTtlMs ?? 60_000;
    this.remoteTtlMs = options.remoteTtlMs ?? 1_000;
    this.limit = options.limit ?? 10_000;
    runner?.on('progress', (progress) => {
      if (!progress.applied || !this.projections.includes(progress.name)) return;
      this.generation++;
      this.entries.clear();
    });
  }

  /**
   * The kept value of `id`, else what `read` gives, kept. `read` is told whether the projections run here and are live
   * (their read models are then current as of this process's writes).
   */
  async get<V extends T | undefined>(id: string, read: (local: boolean) => Promise<V>): Promise<V> {
    const runner = this.runner;
    const local = runner !== undefined && this.projections.every((name) => runner.isLive(name));
    const ttl = local ? this.localTtlMs : this.remoteTtlMs;
    const entry = this.entries.get(id);
    if (entry && Date.now() - entry.at <= ttl) return entry.value as V;
    if (entry) this.entries.delete(id);
    const generation = this.generation;
    const value = await read(local);
    if (value !== undefined && ttl > 0 && generation === this.generation) this.keep(id, value as T);
    return value;
  }

  /** A value this process has just changed (its command handler): kept at once, and no read in flight overwrites it. */
  set(id: string, value: T): void {
    this.generation++;
    this.keep(id, value);
  }

  private keep(id: string, value: T): void {
    this.entries.delete(id);
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { value, at: Date.now() });
  }
}
