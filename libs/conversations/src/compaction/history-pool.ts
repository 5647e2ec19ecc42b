// The history work of a turn (history-work.ts) run through the offline worker pool: in a worker thread once the text
// it covers is over the pool's inline threshold, in this thread below it (where a thread hop costs more than the
// count). From the TypeScript sources there is no compiled module to load, and everything runs in this thread.
import { runPooled, type PooledFunction } from '#model-providers';
import type { Checkpoint, CompactionPlan, HistoryMessage } from './compaction-boundary.js';
import * as work from './history-work.js';

const MODULE = new URL('./history-work.js', import.meta.url);

const pooled = <A extends readonly unknown[], T>(
  name: keyof typeof work,
  inline: (...args: A) => T,
): PooledFunction<A, T> => ({ module: MODULE, name, inline });

const PLAN = pooled('planHistoryCompaction', work.planHistoryCompaction);
const VIEW = pooled('viewTokens', work.viewTokens);
const RECENT = pooled('recentThatFit', work.recentThatFit);
const SECTIONS = pooled('sectionTokens', work.sectionTokens);

export const planHistoryCompaction = (
  history: readonly HistoryMessage[],
  current: Checkpoint | null,
  budget: number,
): Promise<CompactionPlan | null> =>
  runPooled(PLAN, [history, current, budget] as const, work.historySize(history, current));

export const viewTokens = (
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
): Promise<number> => runPooled(VIEW, [history, checkpoint] as const, work.historySize(history, checkpoint));

export const recentThatFit = (
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
  budget: number,
): Promise<number> =>
  runPooled(RECENT, [history, checkpoint, budget] as const, work.historySize(history, checkpoint));

export const sectionTokens = (sections: readonly string[]): Promise<number> =>
  runPooled(
    SECTIONS,
    [sections] as const,
    sections.reduce((sum, section) => sum + section.length, 0),
  );
