// Small helpers shared by the benchmarks: temp dirs, medians, the result row every benchmark reports, a process's CPU
// time, this machine's durable-commit floor, and the event seeding (through the real deciders and SqliteEventStore)
// that the projection and start-up benchmarks use.
import type { DomainEvent } from '#kernel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId, type Actor } from '#kernel';
import { toNewEvents, type CommandContext } from '#eventsourcing';
import type { EventStore } from '#event-store';
import {
  decideSpace,
  type SpaceCommand,
  evolveSpace,
  initialSpaceState,
  spaceStreamId,
  type SpaceState,
} from '#spaces';
import { decideAgent, type AgentCommand } from '#agents/agent.decider';
import { evolveAgent, initialAgentState, agentStreamId, type AgentState } from '#agents';

/** One line of the final table. `ratio` is value ÷ baseline when there is a baseline. */
export interface MetricRow {
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline: number | null;
  readonly baselineLabel: string | null;
  readonly ratio: number | null;
  /** What the goal compares (the ratio or the value itself); null for informational rows. */
  readonly goal: { readonly on: 'ratio' | 'value'; readonly op: '>=' | '<='; readonly target: number } | null;
}

export function passes(row: MetricRow): boolean | null {
  if (!row.goal) return null;
  const actual = row.goal.on === 'ratio' ? row.ratio : row.value;
  if (actual === null) return false;
  return row.goal.op === '>=' ? actual >= row.goal.target : actual <= row.goal.target;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function makeTempDir(label: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `ap-bench-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** CPU seconds (user + system, every thread) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name (which may contain spaces): utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * This machine's floor for one durable write: the p50 of single-row commits (WAL, synchronous=FULL, as the event
 * store appends) into a file in `dir`, `gapMs` after the previous one. A commit that follows an idle pause (a turn's
 * answer, a few ms after the last write) pays more than one of a back-to-back series: on this kind of VM the fsync's
 * latency grows with the time the disk was idle.
 */
export async function durableCommitP50(dir: string, gapMs: number, commits = 200): Promise<number> {
  const path = join(dir, `commit-floor-${gapMs}.db`);
  const db = new DatabaseSync(path);
  try {
    db.exec(
      'PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, d TEXT)',
    );
    const insert = db.prepare('INSERT INTO t (d) VALUES (?)');
    const row = 'x'.repeat(1_500);
    const times: number[] = [];
    for (let i = 0; i < commits; i++) {
      if (gapMs > 0) await sleep(gapMs);
      const started = performance.now();
      insert.run(row);
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
}

export const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

export const BENCH_ACTOR: Actor = { kind: 'user', id: 'usr_0190bench0000000000000000000000' };

export function benchContext(): CommandContext {
  return { actor: BENCH_ACTOR, correlationId: newId('req'), now: () => new Date() };
}

/** Deterministic filler text of an exact length, so JSON sizes are the same for the store and its baseline. */
export function text(length: number, seed: number): string {
  const words = ['agent', 'space', 'prompt', 'answer', 'careful', 'concise', 'helpful', 'context', 'model'];
  let out = '';
  let i = seed;
  while (out.length < length) out += `${words[i++ % words.length]} `;
  return out.slice(0, length);
}

export const COLORS = ['#6366f1', '#1e88e5', '#43a047', '#e53935', '#fb8c00'];

export function createSpaceCommand(i: number, spaceId = newId('spc')): SpaceCommand {
  return {
    type: 'CreateSpace',
    spaceId,
    name: `Space ${i}`,
    slug: `space-${i}`,
    description: text(120, i),
    color: COLORS[i % COLORS.length]!,
  };
}

export function createAgentCommand(i: number, spaceId: string | null, agentId = newId('agt')): AgentCommand {
  return {
    type: 'CreateAgent',
    agentId,
    spaceId,
    isPersonal: false,
    ownerUserId: BENCH_ACTOR.id,
    settings: { name: `Agent ${i}`, model: 'offline-chat', systemPrompt: text(400, i) },
  };
}

/** The changes a seeded Agent goes through, in order: one event each. */
function agentChange(agentId: string, step: number, i: number): AgentCommand {
  switch (step % 6) {
    case 0:
      return { type: 'ChangeAgentSystemPrompt', agentId, systemPrompt: text(400, i + step + 1) };
    case 1:
      return { type: 'ChangeAgent', agentId, settings: { model: `model-${step}` } };
    case 2:
      return { type: 'ChangeAgent', agentId, settings: { temperature: 0.1 * (step % 10), topP: 0.9 } };
    case 3:
      return { type: 'ChangeAgent', agentId, settings: { name: `Agent ${i} v${step}` } };
    case 4:
      return {
        type: 'ChangeAgent',
        agentId,
        settings: { allowedUrls: [`https://example.com/${i}/${step}`] },
      };
    default:
      return { type: 'ChangeAgent', agentId, settings: { embedWindowTitle: `Window ${step}` } };
  }
}

function spaceChange(spaceId: string, step: number, i: number): SpaceCommand {
  switch (step % 4) {
    case 0:
      return { type: 'ChangeSpace', spaceId, name: `Space ${i} v${step}` };
    case 1:
      return { type: 'ChangeSpace', spaceId, description: text(120, i + step + 1) };
    case 2:
      return { type: 'ChangeSpace', spaceId, color: COLORS[(i + step + 1) % COLORS.length]! };
    default:
      return { type: 'ChangeSpace', spaceId, slug: `space-${i}-v${step}` };
  }
}

export interface SeedPlan {
  readonly spaces: number;
  /** Events per Space, creation included. */
  readonly eventsPerSpace: number;
  readonly agents: number;
  /** Events per Agent, creation included. */
  readonly eventsPerAgent: number;
  /** In how many rounds each stream's events are appended (default 2); each round visits every stream once. */
  readonly rounds?: number;
}

export const seedEventCount = (plan: SeedPlan): number =>
  plan.spaces * plan.eventsPerSpace + plan.agents * plan.eventsPerAgent;

/**
 * Appends the plan's events through the real deciders and `appendToStream`, one batch per stream and round, in two
 * rounds by default (creation plus the first half of the changes, then the rest), so the log interleaves streams as a
 * live system's would while needing few transactions; more rounds spread each stream's changes over the whole log.
 */
export async function seed(store: EventStore, plan: SeedPlan): Promise<number> {
  interface Stream<S> {
    id: string;
    streamId: string;
    state: S;
    revision: number | null;
    done: number;
  }
  const spaces: Stream<SpaceState>[] = Array.from({ length: plan.spaces }, () => {
    const id = newId('spc');
    return { id, streamId: spaceStreamId(id), state: initialSpaceState(), revision: null, done: 0 };
  });
  const agents: Stream<AgentState>[] = Array.from({ length: plan.agents }, () => {
    const id = newId('agt');
    return { id, streamId: agentStreamId(id), state: initialAgentState(), revision: null, done: 0 };
  });
  let appended = 0;
  const context = benchContext();

  /** Decides a stream's next commands up to `upTo`, folding as it goes, and appends them as one batch. */
  const batch = async <S, C, E extends DomainEvent>(
    stream: Stream<S>,
    upTo: number,
    decider: { decide: (command: C, state: S) => readonly E[]; evolve: (state: S, event: E) => S },
    next: (done: number) => C,
  ) => {
    const events: E[] = [];
    for (; stream.done < upTo; stream.done++) {
      for (const event of decider.decide(next(stream.done), stream.state)) {
        stream.state = decider.evolve(stream.state, event);
        events.push(event);
      }
    }
    if (events.length === 0) return;
    const result = await store.appendToStream(
      stream.streamId,
      toNewEvents(events, context),
      stream.revision ?? 'no_stream',
    );
    stream.revision = result.nextRevision;
    appended += events.length;
  };
  const spaceBatch = (stream: Stream<SpaceState>, i: number, upTo: number) =>
    batch(stream, upTo, { decide: decideSpace, evolve: evolveSpace }, (done) =>
      done === 0 ? createSpaceCommand(i, stream.id) : spaceChange(stream.id, done, i),
    );
  const agentBatch = (stream: Stream<AgentState>, i: number, upTo: number) =>
    batch(stream, upTo, { decide: decideAgent, evolve: evolveAgent }, (done) =>
      done === 0
        ? createAgentCommand(i, spaces.length > 0 ? spaces[i % spaces.length]!.id : null, stream.id)
        : agentChange(stream.id, done, i),
    );

  const rounds = plan.rounds ?? 2;
  const upTo = (n: number, round: number) => Math.ceil((n * (round + 1)) / rounds);
  for (let round = 0; round < rounds; round++) {
    const spaceTarget = upTo(plan.eventsPerSpace, round);
    const agentTarget = upTo(plan.eventsPerAgent, round);
    const longest = Math.max(spaces.length, agents.length);
    for (let i = 0; i < longest; i++) {
      if (i < spaces.length) await spaceBatch(spaces[i]!, i, spaceTarget);
      if (i < agents.length) await agentBatch(agents[i]!, i, agentTarget);
    }
  }
  return appended;
}

export const fmtRate = (perSecond: number): string =>
  perSecond >= 10_000 ? `${Math.round(perSecond).toLocaleString('en-US')}` : perSecond.toFixed(0);
