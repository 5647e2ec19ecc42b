// `projections status` and `projections rebuild`: the projection registry, checkpoints and leases as the stores hold
// them (read-only, so it answers while the api and workers run), and a blue/green rebuild that is either requested
// from the process holding the projector's lease or, when nobody holds it, carried out in this process.
import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ProjectionRecord, type ReadStore } from '#read-store';
import { ProjectionRunner, PROJECTORS, type Projector } from '#eventsourcing';
import { LAG_CAP, projectionHealth } from '#operations';
import { duration, table } from './format.js';
import { RebuildProgress } from './rebuild-progress.js';
import { CLI_OUTPUT, CliError, type CliOutput } from './output.js';

export interface ProjectionReport {
  readonly name: string;
  /** Version of the projector's code in this build. */
  readonly codeVersion: number;
  /** Version the live generation was built with (null before the first run). */
  readonly liveVersion: number | null;
  readonly state: string;
  readonly liveGeneration: number | null;
  readonly checkpoint: number;
  readonly lagEvents: number;
  readonly lagSeconds: number;
  readonly building: { readonly generation: number; readonly checkpoint: number } | null;
  readonly rebuildRequested: boolean;
  readonly lease: { readonly owner: string; readonly expiresAt: number } | null;
}

export interface RebuildOptions {
  /** Give up (exit 1) after this long; a requested rebuild stays requested. Default 10 minutes. */
  readonly timeoutMs?: number;
  /** How often the registry and checkpoints are polled. Default 200 ms. */
  readonly pollMs?: number;
  /** Stops waiting (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** How long the old generation stays readable after an in-process switch. Default 1 s. */
  readonly retireGraceMs?: number;
  /** Lease lifetime of an in-process runner. Default: the runner's. */
  readonly leaseTtlMs?: number;
}

export interface RebuildResult {
  readonly name: string;
  readonly previousGeneration: number | null;
  readonly generation: number;
  /** Who built it: the process holding the lease (on request) or this one. */
  readonly builtBy: 'lease-holder' | 'this-process';
}

export const leaseName = (projection: string): string => `projection:${projection}`;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

function stateOf(
  record: ProjectionRecord | null,
  projector: Projector,
  lagEvents: number,
  leased: boolean,
): string {
  if (!record || record.liveGeneration === null) return 'not started';
  if (record.buildingGeneration !== null) return 'rebuilding';
  if (record.rebuildRequested) return 'rebuild requested';
  if (record.liveVersion !== projector.version) return 'outdated';
  if (lagEvents > 0) return leased ? 'behind' : 'stalled';
  return 'up to date';
}

@Injectable()
export class ProjectionAdmin {
  /** The lease owner of this process, as the platform's runner names it. */
  private readonly owner: string;
  /** The platform's runner, never started here: it knows which events each projector reads. */
  private readonly platformRunner: ProjectionRunner;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PROJECTORS) private readonly projectors: Projector[],
    platformRunner: ProjectionRunner,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {
    this.owner = platformRunner.options.owner;
    this.platformRunner = platformRunner;
  }

  names(): string[] {
    return this.projectors.map((projector) => projector.name);
  }

  async report(): Promise<ProjectionReport[]> {
    const health = await projectionHealth(this.eventStore, this.readStore, this.platformRunner, this.names());
    return Promise.all(
      health.map(async (item) => {
        const projector = this.projectors.find((candidate) => candidate.name === item.name)!;
        const [record, lease] = await Promise.all([
          this.readStore.projection(item.name),
          this.readStore.leaseHolder(leaseName(item.name)),
        ]);
        return {
          name: item.name,
          codeVersion: projector.version,
          liveVersion: record?.liveVersion ?? null,
          state: stateOf(record, projector, item.lagEvents, lease !== null),
          liveGeneration: item.liveGeneration,
          checkpoint: item.checkpoint,
          lagEvents: item.lagEvents,
          lagSeconds: item.lagSeconds,
          building: item.rebuilding,
          rebuildRequested: record?.rebuildRequested ?? false,
          lease,
        };
      }),
    );
  }

  async printStatus(options: { readonly json?: boolean } = {}): Promise<void> {
    const [head, reports] = await Promise.all([this.eventStore.headPosition(), this.report()]);
    if (options.json) {
      for (const report of reports) this.output.line(JSON.stringify(report));
      return;
    }
    const now = Date.now();
    this.output.line(`log head: ${head}`);
    const rows = reports.map((report) => [
      report.name,
      report.state,
      report.liveVersion === null || report.liveVersion === report.codeVersion
        ? String(report.codeVersion)
        : `${report.liveVersion}->${report.codeVersion}`,
      report.liveGeneration === null ? '-' : String(report.liveGeneration),
      String(report.checkpoint),
      report.lagEvents >= LAG_CAP ? `${LAG_CAP}+` : String(report.lagEvents),
      duration(report.lagSeconds),
      report.building ? `g${report.building.generation}@${report.building.checkpoint}` : '-',
      report.lease?.owner ?? '-',
      report.lease ? `in ${duration(Math.max(0, report.lease.expiresAt - now) / 1000)}` : '-',
    ]);
    for (const line of table(
      [
        'PROJECTION',
        'STATE',
        'VERSION',
        'LIVE GEN',
        'CHECKPOINT',
        'LAG',
        'LAG AGE',
        'BUILDING',
        'LEASE HOLDER',
        'EXPIRES',
      ],
      rows,
    ))
      this.output.line(line);
  }

  /**
   * Rebuilds a projection into a new generation and waits until readers have been switched to it. The process that
   * holds the projector's lease is asked to do it (`rebuildRequested`); when nobody holds the lease, or its holder
   * goes away while we wait, a runner with only this projector does it here and retires the old generation.
   */
  // Over 100 lines on purpose: one rebuild's steps (lease, new generation, catch-up, switch, report) share
  // its state and its abort.
  async rebuild(name: string, options: RebuildOptions = {}): Promise<RebuildResult> {
    const projector = this.projectors.find((candidate) => candidate.name === name);
    if (!projector) throw new CliError(`unknown projection '${name}' (known: ${this.names().join(', ')})`);
    const timeoutMs = options.timeoutMs ?? 10 * 60_000;
    const pollMs = options.pollMs ?? 200;
    const retireGraceMs = options.retireGraceMs ?? 1000;
    const { signal } = options;

    const before = await this.readStore.projection(name);
    const previous = before?.liveGeneration ?? null;
    if (before?.buildingGeneration != null) {
      this.output.note(
        `a rebuild of '${name}' into generation ${before.buildingGeneration} is already under way: following it`,
      );
    } else {
      await this.readStore.saveProjection({ name, rebuildRequested: true });
    }

    const progress = new RebuildProgress(this.output, name);
    let head = await this.eventStore.headPosition();
    // Assigned by runHere (a closure), so not narrowed to its initial null.
    let runner = null as ProjectionRunner | null;
    const runHere = () => {
      runner = new ProjectionRunner(this.eventStore, this.readStore, [projector], {
        owner: this.owner,
        retireGraceMs,
        ...(options.leaseTtlMs ? { leaseTtlMs: options.leaseTtlMs } : {}),
        logger: {
          info: () => undefined,
          error: (message, context) => progress.note(`warning: ${message} ${JSON.stringify(context ?? {})}`),
        },
      });
      // Progress straight from the runner: every batch, not only when the poll below comes round.
      runner.on('progress', (event) => {
        if (event.name === name && !event.live)
          progress.update(event.generation, event.position, Math.max(head, event.position));
      });
      runner.start();
    };

    const holder = await this.readStore.leaseHolder(leaseName(name));
    if (holder && holder.owner !== this.owner) {
      progress.note(
        `'${name}' is held by ${holder.owner}: rebuild requested, waiting for it to switch generations`,
      );
    } else {
      progress.note(`nobody holds '${name}': rebuilding in this process`);
      runHere();
    }

    const deadline = Date.now() + timeoutMs;
    let record: ProjectionRecord;
    try {
      for (;;) {
        record = (await this.readStore.projection(name))!;
        const switched =
          record.liveGeneration !== null &&
          record.liveGeneration !== previous &&
          record.buildingGeneration === null &&
          !record.rebuildRequested;
        head = await this.eventStore.headPosition();
        if (switched) {
          progress.finish(record.liveGeneration!, head);
          break;
        }
        if (record.buildingGeneration !== null) {
          const checkpoint = await this.readStore.checkpoint({ name, generation: record.buildingGeneration });
          progress.update(record.buildingGeneration, checkpoint, head);
        }
        if (!runner && !(await this.readStore.leaseHolder(leaseName(name)))) {
          progress.note(`the lease of '${name}' is free now: continuing the rebuild in this process`);
          runHere();
        }
        if (signal?.aborted)
          throw new CliError(
            runner
              ? 'interrupted: the next runner of this projection resumes the unfinished generation'
              : 'interrupted: the rebuild stays requested; the lease holder still carries it out',
          );
        if (Date.now() > deadline)
          throw new CliError(
            `gave up after ${duration(timeoutMs / 1000)} waiting for '${name}' to switch generations` +
              (runner ? '' : '; the rebuild stays requested'),
          );
        await sleep(pollMs, signal);
      }
    } finally {
      progress.stop();
      if (runner) await runner.stop();
    }

    const generation = record.liveGeneration!;
    this.output.line(`switched to generation ${generation}`);
    if (runner && previous !== generation) {
      // Readers elsewhere may still use the old generation for a moment (their generation cache). The runner drops it
      // after that grace period, on a timer that must fire before this process exits and closes the stores; the
      // drop here is the same (idempotent) step, for the generation this command knows about.
      await sleep(retireGraceMs + 100);
      if (previous !== null) {
        await this.readStore.dropGeneration({ name, generation: previous }, record.collections);
        this.output.note(`retired generation ${previous}`);
      }
    }
    return {
      name,
      previousGeneration: previous,
      generation,
      builtBy: runner ? 'this-process' : 'lease-holder',
    };
  }
}
