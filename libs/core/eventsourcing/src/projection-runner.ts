// Runs projectors over the global log: one checkpointed catch-up subscription per projector, held under a lease so
// the same projector never runs twice at once (api and worker processes may both start runners). A projector whose
// code version differs from the live generation's, or whose rebuild was requested, is rebuilt into a new generation
// beside the live one and switched to once it has caught up (blue/green). A failing projector retries with backoff
// and never stops the others. A batch holding no event a projector reads is skipped (no projection, no write): its
// position is seen in memory at once (status, read-your-writes) and stored lazily (see LazyCheckpoint). The store is
// told which types a projector reads: the embedded one does not even wake it for an append of other types.
// Over 300 lines on purpose: the lease, the generations and the checkpoints of one projector interlock (a
// switch
// flushes the building generation's checkpoint, a lost lease stops every write), so they stay in one file.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { inSpan, SpanKind, type EventEnvelope } from '#kernel';
import type { EventStore, Subscription } from '#event-store';
import type {
  CollectionSpec,
  Filter,
  FindOptions,
  ProjectionRecord,
  ProjectionRef,
  ReadStore,
  StoredDocument,
} from '#read-store';
import { findPendingPage, PendingWrites } from './pending-writes.js';
import {
  eventTypeFilter,
  type EventTypeFilter,
  type ProjectionContext,
  type Projector,
} from './projector.js';

export type ProjectorState = 'starting' | 'standby' | 'catching_up' | 'live' | 'failed' | 'stopped';

export interface ProjectorStatus {
  readonly name: string;
  readonly version: number;
  readonly state: ProjectorState;
  readonly liveGeneration: number | null;
  /** The live generation's position as seen by this runner; the stored checkpoint may lag (skipped batches). */
  readonly checkpoint: number;
  readonly rebuilding: { readonly generation: number; readonly checkpoint: number } | null;
  readonly lastError: string | null;
  readonly failures: number;
}

export interface ProgressEvent {
  readonly name: string;
  readonly generation: number;
  readonly position: number;
  readonly live: boolean;
  /** False when the batch held no event the projector reads: nothing was written, the position was only seen. */
  readonly applied: boolean;
}

export interface RunnerLogger {
  info(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

export interface ProjectionRunnerOptions {
  readonly owner: string;
  readonly leaseTtlMs?: number;
  readonly batchSize?: number;
  /** How long an old generation is kept after a switch, for readers whose generation cache is still warm. */
  readonly retireGraceMs?: number;
  readonly maxBackoffMs?: number;
  /**
   * How long at most the stored checkpoint of a generation lags behind batches it skipped (default 1000 ms). It
   * catches up sooner with the next batch the projector applies, a generation switch, or stop.
   */
  readonly idleCheckpointMs?: number;
  /**
   * While a generation catches up through full batches, the writes of consecutive batches are committed together: at
   * most this long after the first of them was projected (default 1000 ms), once they change `catchUpCommitDocuments`
   * documents (default 20,000), and with the first short batch (the head) or the end of the catch-up. A document
   * changed by many batches is then written once, not once per batch.
   */
  readonly catchUpCommitMs?: number;
  readonly catchUpCommitDocuments?: number;
  readonly logger?: RunnerLogger;
}

/** A lease owner names its host and process, so a restarted process can tell a dead holder from a live one. */
export const processLeaseOwner = (host: string): string =>
  `${host}/${process.pid}/${randomBytes(4).toString('hex')}`;

/**
 * True when `holder` is a process of this host that no longer runs: a previous incarnation with our own pid (a
 * restarted container), or a pid that does not exist. Its lease can be taken over at once instead of waiting for it
 * to expire, so a crash does not leave reads stale for a lease's lifetime.
 */
export function isDeadLocalHolder(holder: string, self: string): boolean {
  const [host, pidText] = holder.split('/');
  const [ownHost] = self.split('/');
  const pid = Number(pidText);
  if (holder === self || host !== ownHost || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const SILENT: RunnerLogger = { info: () => undefined, error: () => undefined };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

class LeaseLostError extends Error {}

const withoutIndexes = (collections: readonly CollectionSpec[]): CollectionSpec[] =>
  collections.map(({ name }) => ({ name }));

export class ProjectionRunner extends EventEmitter<{ progress: [ProgressEvent] }> {
  private readonly workers: ProjectorWorker[];
  private readonly reads = new Map<Projector, EventTypeFilter>();

  constructor(
    readonly eventStore: EventStore,
    readonly readStore: ReadStore,
    projectors: readonly Projector[],
    readonly options: ProjectionRunnerOptions,
  ) {
    super();
    this.setMaxListeners(0);
    this.workers = projectors.map((projector) => new ProjectorWorker(projector, this));
  }

  start(): void {
    for (const worker of this.workers) worker.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop()));
  }

  status(): ProjectorStatus[] {
    return this.workers.map((worker) => worker.status());
  }

  /** Whether this runner serves the named projector live right now (holds its lease and is caught up). */
  isLive(name: string): boolean {
    return this.workers.some((worker) => worker.projector.name === name && worker.live);
  }

  projectorNames(): string[] {
    return this.workers.map((worker) => worker.projector.name);
  }

  /** The named projector of this runner (held here or not), or undefined. */
  projector(name: string): Projector | undefined {
    return this.workers.find((worker) => worker.projector.name === name)?.projector;
  }

  /** The event types a projector reads (every type for one that reads EVERY_EVENT). */
  eventTypesOf(projector: Projector): EventTypeFilter {
    let types = this.reads.get(projector);
    if (!types) {
      types = eventTypeFilter(projector.eventTypes);
      this.reads.set(projector, types);
    }
    return types;
  }

  /** Resolves when every projector this runner holds has caught up once (or the timeout passes: false). */
  async caughtUp(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.workers.some((worker) => !worker.hasCaughtUp())) {
      if (Date.now() > deadline) return false;
      await sleep(10);
    }
    return true;
  }

  /**
   * Applies a batch of events to one generation of a projector and commits ops and checkpoint together. A batch
   * without any event the projector reads is not committed at all: false (the caller stores its position later).
   */
  async applyBatch(
    projector: Projector,
    ref: ProjectionRef,
    events: readonly EventEnvelope[],
  ): Promise<boolean> {
    const pending = this.pendingWrites();
    if (!(await this.projectBatch(projector, ref, events, pending))) return false;
    await this.commitPending(ref, pending, events[events.length - 1]!.position);
    return true;
  }

  /**
   * Projects a batch's events into `pending`, the writes not committed yet (this batch's, or those of earlier batches
   * to be committed with it): the projector reads its own state with them applied. False when the batch holds no
   * event the projector reads (nothing projected).
   */
  async projectBatch(
    projector: Projector,
    ref: ProjectionRef,
    events: readonly EventEnvelope[],
    pending: PendingWrites,
  ): Promise<boolean> {
    const interesting = this.eventTypesOf(projector);
    if (!events.some((event) => interesting.has(event.type))) return false;
    // A root span per projected batch (skipped batches make none), when tracing is on.
    await inSpan(
      `projection ${projector.name}`,
      SpanKind.INTERNAL,
      {
        'agent_platform.projection': projector.name,
        'agent_platform.projection.generation': ref.generation,
        'agent_platform.projection.events': events.length,
        'agent_platform.projection.position': events[events.length - 1]!.position,
      },
      async () => {
        const context: ProjectionContext = {
          get: async <T extends StoredDocument>(collection: string, id: string) => {
            const committed = await this.readStore.readerAt<T>(collection, ref).get(id);
            return pending.applied(committed, collection, id) as T | null;
          },
          find: <T extends StoredDocument>(collection: string, filter: Filter, options?: FindOptions) =>
            findPendingPage<T>(this.readStore, ref, collection, filter, options ?? {}, pending),
        };
        for (const event of events) {
          if (!interesting.has(event.type)) continue;
          for (const op of await projector.project(event, context))
            pending.add({ position: event.position, op });
        }
      },
      true,
    );
    return true;
  }

  /** Commits pending writes and the checkpoint they reach in one transaction (where the store has them). */
  async commitPending(ref: ProjectionRef, pending: PendingWrites, checkpoint: number): Promise<void> {
    await this.readStore.commit(ref, pending.compacted(), checkpoint);
  }

  /** Writes to project into and commit, folded as this runner's store commits them (see compactOps). */
  pendingWrites(): PendingWrites {
    return new PendingWrites({ mergeIncrements: this.readStore.atomicCommit });
  }
}

/**
 * The writes of a generation catching up, carried from batch to batch and committed together (see
 * `catchUpCommitMs`). What is carried is not reached yet: the generation's checkpoint (stored, and as readers see it)
 * moves only when it is committed, so a crash or a stop re-reads those events. Once caught up, every batch commits
 * on its own again, after anything still carried.
 */
class CatchUpWrites {
  catchingUp = true;
  private carried: PendingWrites | null = null;
  /** When the first carried write was projected (0: none carried). */
  private since = 0;
  /** The position the carried writes reach (batches and passed-over events after the last commit). */
  private through = 0;
  private committing: Promise<void> = Promise.resolve();
  private inFlight = false;

  constructor(
    private readonly fresh: () => PendingWrites,
    private readonly commit: (pending: PendingWrites, through: number) => Promise<void>,
    private readonly reached: (position: number, applied: boolean) => void,
    private readonly options: Pick<ProjectionRunnerOptions, 'catchUpCommitMs' | 'catchUpCommitDocuments'>,
  ) {}

  /** The writes to project the next batch into: those carried from earlier batches, or new ones. */
  pending(): PendingWrites {
    return (this.carried ??= this.fresh());
  }

  /**
   * A batch up to `through` was projected into `pending()` (or held nothing to project): what is carried is committed
   * now if due (`now`, or the limits reached), else carried on.
   */
  async projected(through: number, now: boolean): Promise<void> {
    if (!this.carried?.documents) {
      this.passed(through);
      return;
    }
    this.through = through;
    if (this.since === 0) this.since = performance.now();
    if (
      now ||
      this.carried.documents >= (this.options.catchUpCommitDocuments ?? 20_000) ||
      performance.now() - this.since >= (this.options.catchUpCommitMs ?? 1000)
    )
      await this.flush();
  }

  /** Nothing up to `position` is to be written: reached at once, unless writes before it still wait. */
  passed(position: number): void {
    if (this.carried?.documents) this.through = position;
    else if (this.inFlight)
      void this.committing.then(
        () => this.reached(position, false),
        () => undefined,
      );
    else this.reached(position, false);
  }

  /** The catch-up ended: what is carried is committed, and every batch from now on commits on its own. */
  caughtUp(): Promise<void> {
    this.catchingUp = false;
    return this.flush();
  }

  /** Settles once nothing carried waits for its commit (rejects if that commit failed). */
  committed(): Promise<void> {
    return this.committing;
  }

  private flush(): Promise<void> {
    const carried = this.carried;
    const through = this.through;
    this.carried = null;
    this.since = 0;
    if (!carried?.documents) return this.committing;
    this.inFlight = true;
    this.committing = this.committing
      .then(() => this.commit(carried, through))
      .then(() => {
        this.inFlight = false;
        this.reached(through, true);
      });
    return this.committing;
  }
}

/**
 * The stored checkpoint of one generation. A skipped batch (nothing the projector reads) is only seen: its position
 * is written at most `intervalMs` later, or with the next commit (which stores the batch's last position anyway), a
 * generation switch or stop, so a burst of events other projectors read (model-call usage) costs no write here. After
 * a crash the projector re-reads the events after the stored checkpoint and skips them again.
 */
class LazyCheckpoint {
  private seen: number;
  private stored: number;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly readStore: ReadStore,
    private readonly ref: ProjectionRef,
    start: number,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.seen = start;
    this.stored = start;
  }

  /** A batch was committed with this checkpoint. */
  committed(position: number): void {
    this.seen = Math.max(this.seen, position);
    this.stored = Math.max(this.stored, position);
  }

  /** A batch up to this position held nothing to apply. */
  skipped(position: number): void {
    this.seen = Math.max(this.seen, position);
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch(this.onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stores the seen position if the stored checkpoint lags behind it. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const write = this.writing
      .catch(() => undefined)
      .then(async () => {
        const target = this.seen;
        if (target <= this.stored) return;
        await this.readStore.commit(this.ref, [], target);
        this.stored = Math.max(this.stored, target);
      });
    this.writing = write;
    return write;
  }

  /** No more writes (the generation is retired, or another runner holds it now). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

class ProjectorWorker {
  private state: ProjectorState = 'starting';
  private stopped = false;
  private running: Promise<void> | null = null;
  private liveGeneration: number | null = null;
  private checkpoint = 0;
  private rebuilding: { generation: number; checkpoint: number } | null = null;
  private lastError: string | null = null;
  private failures = 0;
  private caughtUpOnce = false;
  private wake: (() => void) | null = null;

  constructor(
    readonly projector: Projector,
    private readonly runner: ProjectionRunner,
  ) {}

  private get leaseName() {
    return `projection:${this.projector.name}`;
  }

  private get ttl() {
    return this.runner.options.leaseTtlMs ?? 10000;
  }

  private get logger() {
    return this.runner.options.logger ?? SILENT;
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
    await this.runner.readStore
      .releaseLease(this.leaseName, this.runner.options.owner)
      .catch(() => undefined);
    this.state = 'stopped';
  }

  get live(): boolean {
    return this.state === 'live';
  }

  hasCaughtUp(): boolean {
    return this.caughtUpOnce || this.state === 'standby' || this.state === 'failed';
  }

  status(): ProjectorStatus {
    return {
      name: this.projector.name,
      version: this.projector.version,
      state: this.state,
      liveGeneration: this.liveGeneration,
      checkpoint: this.checkpoint,
      rebuilding: this.rebuilding ? { ...this.rebuilding } : null,
      lastError: this.lastError,
      failures: this.failures,
    };
  }

  private async loop(): Promise<void> {
    const { options } = this.runner;
    while (!this.stopped) {
      try {
        if (!(await this.acquire())) {
          this.state = 'standby';
          await this.pause(this.ttl / 3);
          continue;
        }
        await this.runWhileLeased();
        this.failures = 0;
      } catch (error) {
        if (this.stopped) break;
        if (error instanceof LeaseLostError) {
          this.state = 'standby';
          continue;
        }
        this.failures += 1;
        this.state = 'failed';
        this.lastError = error instanceof Error ? error.message : String(error);
        this.logger.error('projector failed; it retries from its checkpoint', {
          projector: this.projector.name,
          error: this.lastError,
          failures: this.failures,
        });
        await this.pause(Math.min(250 * 2 ** this.failures, options.maxBackoffMs ?? 30000));
      }
    }
  }

  private async acquire(): Promise<boolean> {
    const { readStore, options } = this.runner;
    if (await readStore.acquireLease(this.leaseName, options.owner, this.ttl)) return true;
    const holder = await readStore.leaseHolder(this.leaseName);
    if (!holder || !isDeadLocalHolder(holder.owner, options.owner)) return false;
    this.logger.info('taking over the lease of a process that is gone', {
      projector: this.projector.name,
      holder: holder.owner,
    });
    return readStore.acquireLease(this.leaseName, options.owner, this.ttl, holder.owner);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  // Over 100 lines on purpose: the leased loop's catch-up, batches, generations and checkpoints interlock
  // (see the file's header).
  private async runWhileLeased(): Promise<void> {
    const { readStore, options } = this.runner;
    const { projector } = this;
    let record = await this.ensureLiveGeneration();
    const subscriptions = new Set<Subscription>();
    let failure: ((error: unknown) => void) | null = null;
    const failed = new Promise<never>((_, reject) => {
      failure = reject;
    });
    failed.catch(() => undefined);
    const onError = (error: unknown) => failure?.(error);

    let live: Subscription | null = null;
    const checkpoints = new Map<Subscription, LazyCheckpoint>();
    let leaseLost = false;
    const subscribe = (ref: ProjectionRef, after: number, onCaughtUp: () => void): Subscription => {
      const checkpoint = new LazyCheckpoint(readStore, ref, after, options.idleCheckpointMs ?? 1000, onError);
      /** The generation has read (and applied, or skipped) the log up to this position. */
      const reached = (position: number, applied: boolean) => {
        if (applied) checkpoint.committed(position);
        else checkpoint.skipped(position);
        const isLive = ref.generation === this.liveGeneration;
        if (isLive) this.checkpoint = position;
        else if (this.rebuilding?.generation === ref.generation) this.rebuilding.checkpoint = position;
        this.runner.emit('progress', {
          name: projector.name,
          generation: ref.generation,
          position,
          live: isLive,
          applied,
        });
      };
      const carry = new CatchUpWrites(
        () => this.runner.pendingWrites(),
        (pending, through) => this.runner.commitPending(ref, pending, through),
        reached,
        options,
      );
      const batchSize = options.batchSize ?? 500;
      const subscription = this.runner.eventStore.subscribeToAll({
        after,
        batchSize,
        onEvents: async (events) => {
          await carry.committed();
          const through = events[events.length - 1]!.position;
          if (!carry.catchingUp) {
            reached(through, await this.runner.applyBatch(projector, ref, events));
            return;
          }
          await this.runner.projectBatch(projector, ref, events, carry.pending());
          // A short batch reached the head as it was read: what is carried is committed, as a live batch would be.
          await carry.projected(through, events.length < batchSize);
        },
        // Events of other types the store passed over are skipped as a batch of them would be, without reading them.
        eventTypes: this.runner.eventTypesOf(projector),
        onPassed: (position) => carry.passed(position),
        // Catching up stores what was seen at once: a finished catch-up or rebuild leaves its checkpoint at the head,
        // not up to `idleCheckpointMs` behind it (readers of the stored checkpoint: waiters elsewhere, the CLI, a restart).
        onCaughtUp: () => {
          carry
            .caughtUp()
            .then(() => checkpoint.flush())
            .then(onCaughtUp, onError);
        },
        onError,
      });
      const carried: Subscription = {
        stop: async () => {
          await subscription.stop();
          await carry.committed().catch(() => undefined);
        },
      };
      subscriptions.add(carried);
      checkpoints.set(carried, checkpoint);
      return carried;
    };

    const startLive = async (generation: number) => {
      const ref = { name: projector.name, generation };
      this.checkpoint = await readStore.checkpoint(ref);
      this.state = 'catching_up';
      live = subscribe(ref, this.checkpoint, () => {
        // A generation catches up without secondary indexes (much faster writes); they exist before it counts as live.
        void readStore
          .prepareGeneration(ref, projector.collections)
          .then(() => {
            this.state = 'live';
            this.caughtUpOnce = true;
          })
          .catch(onError);
      });
    };

    const startBuild = async () => {
      record = (await readStore.projection(projector.name))!;
      const resumable = record.buildingGeneration !== null && record.buildingVersion === projector.version;
      if (record.buildingGeneration !== null && !resumable)
        await readStore.dropGeneration(
          { name: projector.name, generation: record.buildingGeneration },
          record.collections,
        );
      const generation = resumable
        ? record.buildingGeneration!
        : Math.max(record.liveGeneration ?? 0, record.buildingGeneration ?? 0) + 1;
      const ref = { name: projector.name, generation };
      await readStore.prepareGeneration(ref, withoutIndexes(projector.collections));
      record = await readStore.saveProjection({
        name: projector.name,
        buildingGeneration: generation,
        buildingVersion: projector.version,
        rebuildRequested: false,
      });
      this.rebuilding = { generation, checkpoint: await readStore.checkpoint(ref) };
      this.logger.info('rebuilding projection beside the live one', {
        projector: projector.name,
        generation,
      });
      let build: Subscription | null = null;
      build = subscribe(ref, this.rebuilding.checkpoint, () => {
        void switchTo(generation, build!).catch(onError);
      });
      if (this.liveGeneration === null) this.state = 'catching_up';
    };

    const switchTo = async (generation: number, build: Subscription) => {
      const previous = this.liveGeneration;
      // Readers elsewhere (waiters, the CLI) find the new live generation at the position it has reached.
      await checkpoints.get(build)?.flush();
      await readStore.prepareGeneration({ name: projector.name, generation }, projector.collections);
      record = await readStore.saveProjection({
        name: projector.name,
        liveGeneration: generation,
        liveVersion: projector.version,
        buildingGeneration: null,
        buildingVersion: null,
      });
      const old = live;
      live = build;
      this.liveGeneration = generation;
      this.checkpoint = this.rebuilding?.checkpoint ?? this.checkpoint;
      this.rebuilding = null;
      this.state = 'live';
      this.caughtUpOnce = true;
      this.logger.info('switched projection to its rebuilt generation', {
        projector: projector.name,
        generation,
      });
      if (old) {
        subscriptions.delete(old);
        checkpoints.get(old)?.close();
        checkpoints.delete(old);
        await old.stop();
      }
      if (previous !== null && previous !== generation) {
        const collections = record.collections;
        setTimeout(() => {
          void readStore
            .dropGeneration({ name: projector.name, generation: previous }, collections)
            .catch(() => undefined);
        }, options.retireGraceMs ?? 5000).unref();
      }
    };

    try {
      this.liveGeneration = record.liveGeneration;
      if (record.liveVersion === projector.version && record.liveGeneration !== null)
        await startLive(record.liveGeneration);
      if (
        record.liveVersion !== projector.version ||
        record.rebuildRequested ||
        record.buildingGeneration !== null
      )
        await startBuild();
      while (!this.stopped) {
        await Promise.race([failed, this.pause(this.ttl / 3)]);
        if (this.stopped) break;
        if (!(await this.acquire())) {
          leaseLost = true;
          throw new LeaseLostError();
        }
        const latest = await readStore.projection(projector.name);
        if (latest?.rebuildRequested && !this.rebuilding) await startBuild();
      }
    } finally {
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      // What was seen is stored while this runner still holds the lease; a failed write only means re-reading.
      await Promise.all(
        [...checkpoints.values()].map(async (checkpoint) => {
          if (!leaseLost) await checkpoint.flush().catch(() => undefined);
          checkpoint.close();
        }),
      );
    }
  }

  /** The first start creates generation 1 as the live one, so a fresh projector is readable while it catches up. */
  private async ensureLiveGeneration(): Promise<ProjectionRecord> {
    const { readStore } = this.runner;
    const record = await readStore.projection(this.projector.name);
    if (record?.liveGeneration != null) {
      await readStore.prepareGeneration(
        { name: this.projector.name, generation: record.liveGeneration },
        record.liveVersion === this.projector.version ? this.projector.collections : [],
      );
      return (await readStore.projection(this.projector.name))!;
    }
    await readStore.prepareGeneration(
      { name: this.projector.name, generation: 1 },
      withoutIndexes(this.projector.collections),
    );
    return readStore.saveProjection({
      name: this.projector.name,
      liveGeneration: 1,
      liveVersion: this.projector.version,
      buildingGeneration: null,
      buildingVersion: null,
    });
  }
}
