// The O(history) work of a turn that counts tokens: planning a compaction, the tokens of the model's view, the
// fallback window, the fixed sections' tokens. Pure functions of plain data, so that `history-pool.ts` can run them in
// the offline worker pool (this module is what a worker thread loads: it imports nothing but the boundary and the
// tokenizer) and the api's event loop never tokenizes a big history.
import { countTokens } from '#tokenizer';
import {
  historyTokens,
  planCompaction,
  type Checkpoint,
  type CompactionPlan,
  type HistoryMessage,
  type KnownTokens,
} from './compaction-boundary.js';

/** Each message's tokens, whole (its text and attachments): what a caller counts once and passes as `tokens`. */
export function messageTokens(history: readonly HistoryMessage[]): number[] {
  return history.map((message) => historyTokens([message], null));
}

/** The counts `tokens` (one per message of `history`, as `messageTokens` gives them) as a look-up. */
const known = (history: readonly HistoryMessage[], tokens?: readonly number[]): KnownTokens | undefined => {
  if (!tokens) return undefined;
  const byMessage = new Map(history.map((message, i) => [message, tokens[i]]));
  return (message) => byMessage.get(message);
};

/**
 * The turn's compaction plan: null when the history fits `budget`. The tokens kept verbatim are half the budget, or
 * the whole newest message (the one being answered) when it is larger and still fits the budget. `tokens`: the
 * messages' counts when known (`messageTokens`), so only the summary and a straddled message's tail are counted.
 */
export function planHistoryCompaction(
  history: readonly HistoryMessage[],
  current: Checkpoint | null,
  budget: number,
  tokens?: readonly number[],
): CompactionPlan | null {
  const tokensOf = known(history, tokens);
  const newest = history.at(-1);
  const keepTokens = Math.min(
    budget,
    Math.max(Math.floor(budget / 2), newest ? historyTokens([newest], null, countTokens, tokensOf) : 0),
  );
  return planCompaction(history, current, budget, { keepTokens, tokensOf });
}

/**
 * Tokens of the model's view of the history (`historyTokens` with the platform's tokenizer; `tokens` as above, and
 * `summaryTokens` the checkpoint's summary's when known).
 */
export function viewTokens(
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
  tokens?: readonly number[],
  summaryTokens?: number,
): number {
  const count =
    checkpoint && summaryTokens !== undefined
      ? (text: string) => (text === checkpoint.summary ? summaryTokens : countTokens(text))
      : countTokens;
  return historyTokens(history, checkpoint, count, known(history, tokens));
}

/** Tokens of one text. */
export function textTokens(text: string): number {
  return countTokens(text);
}

/**
 * Where the most recent messages whose view fits `budget` begin (at least the newest): the fallback when a summary
 * fails. Each message's tokens are counted once, from the newest back, so this is linear in the history; the
 * checkpoint applies only while the kept tail still holds the message it ends in.
 */
export function recentThatFit(
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null,
  budget: number,
): number {
  const last = history.length - 1;
  if (last <= 0) return 0;
  // Every tail that still holds the checkpoint's message has the same view: the summary and what follows it.
  const through = checkpoint
    ? history.findIndex((message) => message.id === checkpoint.throughMessageId)
    : -1;
  if (through >= 0 && historyTokens(history.slice(through), checkpoint) <= budget) return 0;
  // The tails after it, shortest first: a suffix sum, each message counted once.
  const sums: number[] = new Array<number>(history.length).fill(0);
  let sum = 0;
  for (let from = last; from > through; from--) {
    sum += historyTokens([history[from]!], null);
    sums[from] = sum;
  }
  for (let from = through + 1; from < last; from++) if (sums[from]! <= budget) return from;
  return last;
}

/** Tokens of the fixed sections (system prompt and providers), with a little for each message's framing. */
export function sectionTokens(sections: readonly string[]): number {
  return sections.reduce((sum, section) => sum + countTokens(section) + 4, 0);
}

/** Characters of text a history holds (messages and attachments): what decides whether its work leaves the thread. */
export function historySize(
  history: readonly HistoryMessage[],
  checkpoint: Checkpoint | null = null,
): number {
  let size = checkpoint?.summary.length ?? 0;
  for (const message of history) {
    size += message.text.length;
    for (const attachment of message.attachments) size += attachment.text?.length ?? 0;
  }
  return size;
}
