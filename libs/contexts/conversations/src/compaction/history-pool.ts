// The history work of a turn (history-work.ts) run through the offline worker pool: in a worker thread once the text
// it covers is over the pool's inline threshold, in this thread below it (where a thread hop costs more than the
// count). From the TypeScript sources there is no compiled module to load, and everything runs in this thread.
// Each message is counted once: its count is remembered with the message object (a long conversation's turn gets
// the objects it had before: opened-history.ts, turn-prompt.ts), so a turn counts its new messages, not its history.
import { runPooled, type PooledFunction } from '#model-providers';
import type { Checkpoint, CompactionPlan, HistoryMessage } from './compaction-boundary.js';
import * as work from './history-work.js';
import { PrefixMemo } from './prefix-memo.js';

const MODULE = new URL('./history-work.js', import.meta.url);

const pooled = <A extends readonly unknown[], T>(
  name: keyof typeof work,
  inline: (...args: A) => T,
): PooledFunction<A, T> => ({ module: MODULE, name, inline });

const COUNT = pooled('messageTokens', work.messageTokens);
const TEXT = pooled('textTokens', work.textTokens);
const PLAN = pooled('planHistoryCompaction', work.planHistoryCompaction);
const VIEW = pooled('viewTokens', work.viewTokens);
const RECENT = pooled('recentThatFit', work.recentThatFit);
const SECTIONS = pooled('sectionTokens', work.sectionTokens);

/** Each message's tokens (text and attachments), by message object; weak, so a forgotten message takes its count. */
const counted = new WeakMap<HistoryMessage, number>();

/** The last history's counts, reused for the same messages by identity. */
const counts = new PrefixMemo<HistoryMessage, number>();

/** The tokens of each message of `history`, counting only those not counted before. */
async function messageTokens(history: readonly HistoryMessage[]): Promise<number[]> {
  // The last history's counts first (by identity: no message read), then each other message's, if it was counted.
  const { count, outputs } = counts.reuse(history);
  const tokens = outputs.slice(0, count);
  const uncounted: HistoryMessage[] = [];
  for (let i = count; i < history.length; i++) {
    const message = history[i]!;
    const known = counted.get(message);
    if (known === undefined) uncounted.push(message);
    tokens.push(known ?? -1);
  }
  if (uncounted.length > 0) {
    const made = await runPooled(COUNT, [uncounted] as const, work.historySize(uncounted));
    uncounted.forEach((message, i) => counted.set(message, made[i]!));
    let next = 0;
    for (let i = count; i < history.length; i++) if (tokens[i] === -1) tokens[i] = made[next++]!;
  }
  counts.keep(history, tokens);
  return tokens;
}

/**
 * Each checkpoint's summary's tokens, by checkpoint id (a checkpoint's summary never changes; ids and counts only, no
 * text), the most recent SUMMARY_COUNTS of them.
 */
const summaryCounts = new Map<string, number>();
const SUMMARY_COUNTS = 1_024;

async function summaryTokens(checkpoint: Checkpoint & { checkpointId?: string }): Promise<number> {
  const id = checkpoint.checkpointId;
  const known = id === undefined ? undefined : summaryCounts.get(id);
  if (known !== undefined) return known;
  const tokens = await runPooled(TEXT, [checkpoint.summary] as const, checkpoint.summary.length);
  if (id !== undefined) {
    summaryCounts.set(id, tokens);
    if (summaryCounts.size > SUMMARY_COUNTS) summaryCounts.delete(summaryCounts.keys().next().value!);
  }
  return tokens;
}

/** The history's counts, and what its view costs (with a checkpoint: its summary and a straddled message's tail). */
async function countedView(
  history: readonly HistoryMessage[],
  current: (Checkpoint & { readonly checkpointId?: string }) | null,
): Promise<{ tokens: number[]; view: number }> {
  const tokens = await messageTokens(history);
  // What the view costs is then a sum, and with a checkpoint its summary (counted once per checkpoint) and a
  // straddled message's tail: a history that fits is known without sending it anywhere.
  const summary = current && (await summaryTokens(current));
  const view =
    current === null
      ? tokens.reduce((sum, each) => sum + each, 0)
      : await runPooled(
          VIEW,
          [history, current, tokens, summary ?? undefined] as const,
          // All that is counted then: the tail of the message the checkpoint straddles.
          history.find((message) => message.id === current.throughMessageId)?.text.length ?? 0,
        );
  return { tokens, view };
}

/** The tokens of the history's model view (`viewTokens`), from the counts remembered for its messages. */
export const historyViewTokens = async (
  history: readonly HistoryMessage[],
  current: (Checkpoint & { readonly checkpointId?: string }) | null,
): Promise<number> => (await countedView(history, current)).view;

export const planHistoryCompaction = async (
  history: readonly HistoryMessage[],
  current: (Checkpoint & { readonly checkpointId?: string }) | null,
  budget: number,
): Promise<CompactionPlan | null> => {
  const { tokens, view } = await countedView(history, current);
  if (view <= budget) return null;
  return runPooled(PLAN, [history, current, budget, tokens] as const, work.historySize(history, current));
};

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
