// Benchmark 1: the command path (the api's AggregateRepository — the generic `handleCommand` with its state cache — over SqliteEventStore: load stream, fold, decide, append
// with expected revision) against raw node:sqlite inserts of the same rows into a table of the same schema, with the
// same pragmas (WAL, synchronous=FULL) and one autocommitted INSERT per event. Both run single-writer, time-boxed,
// alternating baseline/command runs (fsync throughput drifts), each on a fresh file; the median of the runs counts.
// The last scenario runs 32 commands at once against the same one-at-a-time raw baseline: their appends share commits.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { newId, loadConfig } from '#kernel';
import { toNewEvents } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { spaceDecider, spaceStreamId } from '#spaces';
import { agentDecider, type AgentCommand } from '#agents/agent.decider';
import { agentStreamId, type AgentEvent } from '#agents';
import {
  benchContext,
  createAgentCommand,
  createSpaceCommand,
  log,
  makeTempDir,
  median,
  text,
  type MetricRow,
} from './util.js';

/** The event store's schema, verbatim (sqlite-event-store.ts does not export it). */
const EVENTS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position  INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT NOT NULL UNIQUE,
    stream_id TEXT NOT NULL,
    revision  INTEGER NOT NULL,
    type      TEXT NOT NULL,
    data      TEXT NOT NULL,
    metadata  TEXT NOT NULL,
    UNIQUE (stream_id, revision)
  );
`;

type Row = [id: string, streamId: string, revision: number, type: string, data: string, metadata: string];

export interface CommandPathOptions {
  readonly seconds: number;
  readonly runs: number;
  readonly warmupSeconds: number;
  /** Agents whose system prompt the second scenario changes round-robin… */
  readonly agents: number;
  /** …each with this many events in its stream before the timed run. */
  readonly history: number;
}

interface Scenario {
  readonly name: string;
  /** Prepares a fresh store file (untimed); returns the timed operation. */
  readonly command: (store: SqliteEventStore) => Promise<(i: number) => Promise<void>>;
  /** Rows the scenario's setup stores first (untimed), then the rows its commands append, in order. */
  readonly setupRows: readonly Row[];
  readonly rows: (count: number) => Row[];
  /** Commands in flight at once (default 1: each awaits the one before). */
  readonly concurrency?: number;
}

function toRows(
  streamId: string,
  firstRevision: number,
  events: readonly { type: string; data: unknown }[],
): Row[] {
  return toNewEvents(events, benchContext()).map((event, index) => [
    event.id,
    streamId,
    firstRevision + index,
    event.type,
    JSON.stringify(event.data),
    JSON.stringify(event.metadata),
  ]);
}

/** Scenario A: every command creates a new Space (empty stream: load, decide, append with 'no_stream'). */
function createSpaces(): Scenario {
  return {
    name: 'CreateSpace (new stream)',
    command: async (store) => {
      const commands = new AggregateRepository(store, loadConfig({}));
      return async (i) => {
        const command = createSpaceCommand(i);
        await commands.decide(spaceStreamId(command.spaceId), spaceDecider, command, benchContext());
      };
    },
    setupRows: [],
    rows: (count) =>
      Array.from({ length: count }, (_, i) => {
        const command = createSpaceCommand(i);
        const events = spaceDecider.decide(command, spaceDecider.initialState());
        return toRows(spaceStreamId(command.spaceId), 0, events)[0]!;
      }),
  };
}

/**
 * Scenario B: system-prompt changes round-robin over existing Agents that each already have a history (creation plus
 * prompt changes), so every command loads and folds a stream of realistic length. The history is appended untimed in
 * one batch per Agent; with many Agents the timed run lengthens each stream only a little, so the per-command load
 * cost does not depend on how fast the machine is.
 */
function changeSystemPrompts(agents: number, history: number): Scenario {
  const agentIds = Array.from({ length: agents }, () => newId('agt'));
  const prompt = (i: number) => `${i} ${text(400, i)}`;
  const histories = agentIds.map((agentId, i) => {
    let state = agentDecider.initialState();
    const events: AgentEvent[] = [];
    const commands: AgentCommand[] = [createAgentCommand(i, null, agentId)];
    for (let k = 1; k < history; k++)
      commands.push({ type: 'ChangeAgentSystemPrompt', agentId, systemPrompt: `h${k} ${text(400, i + k)}` });
    for (const command of commands)
      for (const event of agentDecider.decide(command, state)) {
        state = agentDecider.evolve(state, event);
        events.push(event);
      }
    return { streamId: agentStreamId(agentId), events: toNewEvents(events, benchContext()) };
  });
  const setupRows = histories.flatMap(({ streamId, events }) =>
    events.map((event, revision): Row => [
      event.id,
      streamId,
      revision,
      event.type,
      JSON.stringify(event.data),
      JSON.stringify(event.metadata),
    ]),
  );
  return {
    name: `ChangeAgentSystemPrompt (${agents.toLocaleString('en-US')} Agents × ${history}+ events)`,
    command: async (store) => {
      for (const { streamId, events } of histories) await store.appendToStream(streamId, events, 'no_stream');
      // The api's AggregateRepository, with its state cache: each command reads only the events after the cached revision.
      const commands = new AggregateRepository(store, loadConfig({}));
      return async (i) => {
        const agentId = agentIds[i % agents]!;
        const command: AgentCommand = { type: 'ChangeAgentSystemPrompt', agentId, systemPrompt: prompt(i) };
        await commands.decide(agentStreamId(agentId), agentDecider, command, benchContext());
      };
    },
    setupRows,
    rows: (count) =>
      Array.from({ length: count }, (_, i) => {
        const agentId = agentIds[i % agents]!;
        const event = {
          type: 'AgentSystemPromptChanged',
          data: { agentId, systemPrompt: prompt(i) },
        };
        return toRows(agentStreamId(agentId), history + Math.floor(i / agents), [event])[0]!;
      }),
  };
}

function openRaw(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;');
  db.exec(EVENTS_SCHEMA);
  return db;
}

/** Raw inserts: one autocommitted INSERT per row, rows prepared before the clock starts. */
function runBaseline(path: string, scenario: Scenario, rows: readonly Row[], seconds: number): number {
  const db = openRaw(path);
  try {
    const insert = db.prepare(
      'INSERT INTO events (id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    );
    db.exec('BEGIN');
    for (const row of scenario.setupRows) insert.run(...row);
    db.exec('COMMIT');
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    let n = 0;
    while (n < rows.length && performance.now() < deadline) insert.run(...rows[n++]!);
    if (n === rows.length) log(`warning: baseline row pool (${rows.length}) exhausted before the deadline`);
    return n / ((performance.now() - started) / 1000);
  } finally {
    db.close();
  }
}

async function runCommands(path: string, scenario: Scenario, seconds: number): Promise<number> {
  const store = new SqliteEventStore({ path });
  try {
    const op = await scenario.command(store);
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    let n = 0;
    // Concurrent writers, as the api's requests are: the appends of one turn of the event loop commit together.
    await Promise.all(
      Array.from({ length: scenario.concurrency ?? 1 }, async () => {
        while (performance.now() < deadline) await op(n++);
      }),
    );
    return n / ((performance.now() - started) / 1000);
  } finally {
    await store.close();
  }
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly commandPerSecond: number[];
  readonly baselinePerSecond: number[];
  readonly commandMedian: number;
  readonly baselineMedian: number;
  readonly ratio: number;
}

async function runScenario(scenario: Scenario, options: CommandPathOptions): Promise<ScenarioResult> {
  const dir = makeTempDir('cmd');
  try {
    // Pool sized for well above any plausible fsync-bound rate; unique ids, so each run uses a fresh file.
    const rows = scenario.rows(Math.ceil(options.seconds * 25_000));
    let file = 0;
    const next = () => join(dir.path, `run-${file++}.db`);
    runBaseline(next(), scenario, rows, options.warmupSeconds);
    await runCommands(next(), scenario, options.warmupSeconds);
    const baseline: number[] = [];
    const command: number[] = [];
    for (let run = 0; run < options.runs; run++) {
      baseline.push(runBaseline(next(), scenario, rows, options.seconds));
      command.push(await runCommands(next(), scenario, options.seconds));
      log(
        `command path ${scenario.name} run ${run + 1}/${options.runs}: ` +
          `raw ${baseline.at(-1)!.toFixed(0)}/s, command ${command.at(-1)!.toFixed(0)}/s`,
      );
    }
    const commandMedian = median(command);
    const baselineMedian = median(baseline);
    return {
      scenario: scenario.name,
      commandPerSecond: command,
      baselinePerSecond: baseline,
      commandMedian,
      baselineMedian,
      ratio: commandMedian / baselineMedian,
    };
  } finally {
    dir.remove();
  }
}

export async function benchCommandPath(
  options: CommandPathOptions,
): Promise<{ rows: MetricRow[]; details: ScenarioResult[] }> {
  const details = [
    await runScenario(createSpaces(), options),
    await runScenario(changeSystemPrompts(options.agents, options.history), options),
    await runScenario(
      { ...createSpaces(), name: 'CreateSpace (new stream), 32 writers at once', concurrency: 32 },
      options,
    ),
  ];
  // Writers at once share commits, so they outrun one INSERT (and its sync) at a time.
  const goals = [0.5, 0.5, 2];
  const rows = details.map((result, index): MetricRow => ({
    metric: `Command path: ${result.scenario}`,
    value: result.commandMedian,
    unit: 'appends/s',
    baseline: result.baselineMedian,
    baselineLabel: 'raw INSERT/s',
    ratio: result.ratio,
    goal: { on: 'ratio', op: '>=', target: goals[index]! },
  }));
  return { rows, details };
}
