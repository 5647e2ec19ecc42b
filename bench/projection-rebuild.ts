// Benchmark 2: projection rebuild against the raw log read. Seeds a SqliteEventStore file with Spaces and Agents
// (created and changed, through the real deciders), then (a) reads the whole log with readAll in batches of 500 —
// rows plus JSON parsing of data and metadata, which is what every subscription pays — and (b) runs the real
// ProjectionRunner with the real spaces and agents projectors over a fresh SqliteReadStore file, timed until every
// projector's live checkpoint has reached the head. Rebuild events/s counts each log event once. Each run measures (a)
// and (b) side by side; the ratio is the median of the runs' ratios. (c), the floor of a rebuild into this read store:
// the same read, the same projectors' ops applied to documents held in memory, then each final document written once
// (one commit through the store) and the indexes built — what a rebuild costs with no write per batch at all.
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { ProjectionRunner } from '#eventsourcing';
import type { Projector, ProjectionContext } from '#eventsourcing';
import { applyOpsInMemory, matchesFilter } from '#eventsourcing/in-memory-ops';
import type { PositionedOp, StoredDocument } from '#read-store';
import { spacesProjector } from '#projections/spaces/spaces.projector';
import { SPACES } from '#spaces';
import { agentsProjector } from '#projections/agents/agents.projector';
import { AGENTS } from '#agents';
import { log, makeTempDir, median, seed, seedEventCount, type MetricRow, type SeedPlan } from './util.js';

export interface ProjectionRebuildOptions {
  readonly plan: SeedPlan;
  /** A second log whose documents change in many rounds spread over it (each in many batches), rebuilt `churnRuns` times. */
  readonly churn: SeedPlan;
  readonly churnRuns: number;
  readonly runs: number;
  readonly batchSize: number;
  readonly timeoutMs: number;
}

export interface ProjectionRebuildDetails {
  readonly events: number;
  readonly seedSeconds: number;
  readonly readAllPerSecond: number[];
  readonly rebuildPerSecond: number[];
  readonly readAllMedian: number;
  readonly rebuildMedian: number;
  /** The median of the runs' own ratios (each a rebuild and a raw read measured side by side). */
  readonly ratio: number;
  readonly ratios: number[];
  /** The same ratio counted in events per second of process CPU time (every thread): less moved by other load. */
  readonly cpuRatio: number;
  /** The floor's events per second (c), each run's, and the median of the runs' floor ÷ raw read. */
  readonly floorPerSecond: number[];
  readonly floorRatio: number;
  readonly perProjector: { name: string; perSecond: number; documents: number }[];
  readonly documents: { spaces: number; agents: number };
  readonly churn: {
    events: number;
    rounds: number;
    ratios: number[];
    ratio: number;
    rebuildMedian: number;
    readAllMedian: number;
  };
}

/** Events per second of wall time and per second of this process's CPU time (every thread). */
interface Rate {
  readonly perSecond: number;
  readonly perCpuSecond: number;
}

const rate = (events: number, seconds: number, cpu: NodeJS.CpuUsage): Rate => ({
  perSecond: events / seconds,
  perCpuSecond: events / ((cpu.user + cpu.system) / 1e6),
});

async function readWholeLog(store: SqliteEventStore, batchSize: number): Promise<Rate> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let after = 0;
  let count = 0;
  for (;;) {
    const batch = await store.readAll({ after, maxCount: batchSize });
    if (batch.length === 0) break;
    count += batch.length;
    after = batch[batch.length - 1]!.position;
  }
  return rate(count, (performance.now() - started) / 1000, process.cpuUsage(cpu));
}

/** Starts a runner over a fresh read store and resolves with the seconds until every projector reached `head`. */
async function rebuild(
  store: SqliteEventStore,
  readStorePath: string,
  projectors: readonly Projector[],
  head: number,
  options: ProjectionRebuildOptions,
): Promise<{ seconds: number; cpu: NodeJS.CpuUsage; documents: Record<string, number> }> {
  const readStore = new SqliteReadStore({ path: readStorePath });
  const runner = new ProjectionRunner(store, readStore, projectors, {
    owner: 'bench',
    batchSize: options.batchSize,
  });
  try {
    const pending = new Set(projectors.map((projector) => projector.name));
    const reached = new Promise<void>((resolve) => {
      runner.on('progress', (progress) => {
        if (progress.live && progress.position >= head) pending.delete(progress.name);
        if (pending.size === 0) resolve();
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`rebuild did not reach head ${head} in ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
    });
    const cpu = process.cpuUsage();
    const started = performance.now();
    runner.start();
    await Promise.race([reached, timeout]).finally(() => clearTimeout(timer));
    // The model counts as rebuilt once it is live: caught up and its secondary indexes built (they are deferred).
    if (!(await runner.caughtUp(options.timeoutMs))) throw new Error('rebuild did not go live');
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    // Cross-check with the store itself: the committed checkpoints, and the documents written.
    for (const projector of projectors) {
      const checkpoint = await readStore.checkpoint({ name: projector.name, generation: 1 });
      if (checkpoint !== head) throw new Error(`${projector.name} checkpoint ${checkpoint} != head ${head}`);
    }
    const documents: Record<string, number> = {};
    for (const projector of projectors)
      for (const collection of projector.collections)
        documents[collection.name] = await readStore.reader(collection.name).count();
    return { seconds, cpu: used, documents };
  } finally {
    await runner.stop();
    await readStore.close();
  }
}

/**
 * The floor of a rebuild into a fresh SqliteReadStore (c): the log read in batches as a subscription reads it, every
 * projector's ops applied in memory, then one commit of each final document and the indexes. Seconds until done.
 */
async function rebuildFloor(
  store: SqliteEventStore,
  readStorePath: string,
  projectors: readonly Projector[],
  head: number,
  batchSize: number,
): Promise<{ seconds: number; documents: Record<string, number> }> {
  const started = performance.now();
  const held = new Map<string, Map<string, PositionedOp>>();
  const collection = (name: string) => {
    let docs = held.get(name);
    if (!docs) held.set(name, (docs = new Map()));
    return docs;
  };
  const current = (name: string, id: string) => {
    const op = collection(name).get(id)?.op;
    return op?.kind === 'upsert' ? op.doc : null;
  };
  const context: ProjectionContext = {
    get: async <T extends StoredDocument>(name: string, id: string) => current(name, id) as T | null,
    find: async <T extends StoredDocument>(name: string, filter: Parameters<typeof matchesFilter>[1]) => ({
      data: [...collection(name).values()].flatMap(({ op }) =>
        op.kind === 'upsert' && matchesFilter(op.doc, filter) ? [op.doc as T] : [],
      ),
      nextCursor: null,
    }),
  };
  for (let after = 0; ;) {
    const batch = await store.readAll({ after, maxCount: batchSize });
    if (batch.length === 0) break;
    for (const projector of projectors)
      for (const event of batch)
        for (const op of await projector.project(event, context)) {
          const id = op.kind === 'upsert' ? op.doc.id : op.id;
          const doc = applyOpsInMemory(current(op.collection, id), op.collection, id, [{ position: 0, op }]);
          const docs = collection(op.collection);
          if (!doc) docs.delete(id);
          else
            docs.set(id, {
              position: event.position,
              op: {
                kind: 'upsert',
                collection: op.collection,
                doc: doc as StoredDocument & Record<string, unknown>,
              },
            });
        }
    after = batch[batch.length - 1]!.position;
  }
  const readStore = new SqliteReadStore({ path: readStorePath });
  try {
    for (const projector of projectors) {
      const ref = { name: projector.name, generation: 1 };
      const names = projector.collections.map((spec) => spec.name);
      await readStore.prepareGeneration(
        ref,
        names.map((name) => ({ name })),
      );
      await readStore.commit(
        ref,
        names.flatMap((name) => [...collection(name).values()]),
        head,
      );
      await readStore.prepareGeneration(ref, projector.collections);
    }
    const seconds = (performance.now() - started) / 1000;
    // The same documents as the rebuild's (compared by the caller).
    const documents: Record<string, number> = {};
    for (const projector of projectors)
      for (const spec of projector.collections)
        documents[spec.name] = await readStore
          .readerAt(spec.name, { name: projector.name, generation: 1 })
          .count();
    return { seconds, documents };
  } finally {
    await readStore.close();
  }
}

/**
 * The same rebuild over a second log, in which every document changes in many rounds spread over the whole log (as a
 * live system's Agents, conversations and counters do), so each is written by many batches: paired with raw reads.
 */
async function churnRebuild(
  dir: string,
  options: ProjectionRebuildOptions,
): Promise<ProjectionRebuildDetails['churn']> {
  const store = new SqliteEventStore({ path: join(dir, 'churn-events.db') });
  try {
    await seed(store, options.churn);
    const head = await store.headPosition();
    await readWholeLog(store, options.batchSize);
    const reads: number[] = [];
    const rebuilds: number[] = [];
    const ratios: number[] = [];
    for (let run = 0; run < options.churnRuns; run++) {
      const result = await rebuild(
        store,
        join(dir, `churn-read-${run}.db`),
        [spacesProjector, agentsProjector],
        head,
        options,
      );
      const raw = await readWholeLog(store, options.batchSize);
      reads.push(raw.perSecond);
      rebuilds.push(head / result.seconds);
      ratios.push(rebuilds.at(-1)! / raw.perSecond);
    }
    log(
      `projection, a log of ${options.churn.rounds ?? 2} rounds: ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`,
    );
    return {
      events: head,
      rounds: options.churn.rounds ?? 2,
      ratios,
      ratio: median(ratios),
      rebuildMedian: median(rebuilds),
      readAllMedian: median(reads),
    };
  } finally {
    await store.close();
  }
}

export async function benchProjectionRebuild(
  options: ProjectionRebuildOptions,
): Promise<{ rows: MetricRow[]; details: ProjectionRebuildDetails }> {
  const dir = makeTempDir('proj');
  const store = new SqliteEventStore({ path: join(dir.path, 'events.db') });
  try {
    const seedStarted = performance.now();
    const events = await seed(store, options.plan);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const head = await store.headPosition();
    log(
      `projection: seeded ${events} events (planned ${seedEventCount(options.plan)}) in ${seedSeconds.toFixed(1)} s`,
    );

    // Warm-up: one untimed read of the whole log (JIT, page cache).
    await readWholeLog(store, options.batchSize);

    // Each run pairs a raw read with a rebuild, in alternating order (a drift of the machine's speed within the
    // run then favours neither), and the figure is the median of the runs' own ratios: on this shared VM the raw
    // read alone varied 2× within minutes, which a ratio of two separate medians carried into the figure.
    let file = 0;
    const readAll: number[] = [];
    const rebuilt: number[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const floors: number[] = [];
    const floorRatios: number[] = [];
    let documents: Record<string, number> = {};
    for (let run = 0; run < options.runs; run++) {
      const rebuildOnce = async (): Promise<Rate> => {
        const result = await rebuild(
          store,
          join(dir.path, `read-${file++}.db`),
          [spacesProjector, agentsProjector],
          head,
          options,
        );
        documents = result.documents;
        return rate(head, result.seconds, result.cpu);
      };
      const readFirst = run % 2 === 0;
      const read = readFirst ? await readWholeLog(store, options.batchSize) : undefined;
      const built = await rebuildOnce();
      const raw = read ?? (await readWholeLog(store, options.batchSize));
      const least = await rebuildFloor(
        store,
        join(dir.path, `read-${file++}.db`),
        [spacesProjector, agentsProjector],
        head,
        options.batchSize,
      );
      if (JSON.stringify(least.documents) !== JSON.stringify(documents))
        throw new Error(
          `floor wrote ${JSON.stringify(least.documents)}, rebuild ${JSON.stringify(documents)}`,
        );
      const floor = head / least.seconds;
      floors.push(floor);
      floorRatios.push(floor / raw.perSecond);
      readAll.push(raw.perSecond);
      rebuilt.push(built.perSecond);
      ratios.push(built.perSecond / raw.perSecond);
      cpuRatios.push(built.perCpuSecond / raw.perCpuSecond);
      log(
        `projection run ${run + 1}/${options.runs}: readAll ${raw.perSecond.toFixed(0)} ev/s, ` +
          `rebuild ${built.perSecond.toFixed(0)} ev/s, ratio ${ratios.at(-1)!.toFixed(2)} ` +
          `(per CPU second ${cpuRatios.at(-1)!.toFixed(2)}); floor ${floor.toFixed(0)} ev/s, ` +
          `${floorRatios.at(-1)!.toFixed(2)} of the raw read`,
      );
    }

    const perProjector: ProjectionRebuildDetails['perProjector'] = [];
    for (const projector of [spacesProjector, agentsProjector]) {
      const result = await rebuild(store, join(dir.path, `read-${file++}.db`), [projector], head, options);
      perProjector.push({
        name: projector.name,
        perSecond: head / result.seconds,
        documents: Object.values(result.documents).reduce((a, b) => a + b, 0),
      });
      log(`projection ${projector.name} alone: ${(head / result.seconds).toFixed(0)} ev/s`);
    }

    const churn = await churnRebuild(dir.path, options);

    const readAllMedian = median(readAll);
    const rebuildMedian = median(rebuilt);
    const details: ProjectionRebuildDetails = {
      events: head,
      seedSeconds,
      readAllPerSecond: readAll,
      rebuildPerSecond: rebuilt,
      readAllMedian,
      rebuildMedian,
      ratio: median(ratios),
      ratios,
      cpuRatio: median(cpuRatios),
      floorPerSecond: floors,
      floorRatio: median(floorRatios),
      perProjector,
      documents: { spaces: documents[SPACES] ?? 0, agents: documents[AGENTS] ?? 0 },
      churn,
    };
    const rows: MetricRow[] = [
      {
        metric: `Projection rebuild: spaces+agents over ${head.toLocaleString('en-US')} events`,
        value: rebuildMedian,
        unit: 'events/s',
        baseline: readAllMedian,
        baselineLabel: 'readAll ev/s',
        ratio: details.ratio,
        goal: { on: 'ratio', op: '>=', target: 0.6 },
      },
      {
        metric: '  the same per second of CPU time (info)',
        value: rebuildMedian,
        unit: 'events/s',
        baseline: readAllMedian,
        baselineLabel: 'readAll ev/s',
        ratio: details.cpuRatio,
        goal: null,
      },
      {
        metric: '  floor: the same read, ops applied in memory, each document written once (info)',
        value: median(floors),
        unit: 'events/s',
        baseline: readAllMedian,
        baselineLabel: 'readAll ev/s',
        ratio: details.floorRatio,
        goal: null,
      },
      {
        metric: '  rebuild ÷ that floor (info)',
        value: rebuildMedian,
        unit: 'events/s',
        baseline: median(floors),
        baselineLabel: 'floor ev/s',
        ratio: rebuildMedian / median(floors),
        goal: null,
      },
      {
        metric: `  a log changing each Agent in ${churn.rounds} rounds (${churn.events.toLocaleString('en-US')} events, info)`,
        value: churn.rebuildMedian,
        unit: 'events/s',
        baseline: churn.readAllMedian,
        baselineLabel: 'readAll ev/s',
        ratio: churn.ratio,
        goal: null,
      },
      ...perProjector.map((p): MetricRow => ({
        metric: `  ${p.name} projector alone (info)`,
        value: p.perSecond,
        unit: 'events/s',
        baseline: readAllMedian,
        baselineLabel: 'readAll ev/s',
        ratio: p.perSecond / readAllMedian,
        goal: null,
      })),
    ];
    return { rows, details };
  } finally {
    await store.close();
    dir.remove();
  }
}
