// The history work a turn hands to the worker pool: the fallback window is found with each message counted once, and
// chooses what the quadratic search (every tail counted whole) chose; the compaction plan keeps the newest message.
import { historyTokens, type Checkpoint, type HistoryMessage } from './compaction-boundary.js';
import * as pool from './history-pool.js';
import {
  historySize,
  messageTokens,
  planHistoryCompaction,
  recentThatFit,
  sectionTokens,
  viewTokens,
} from './history-work.js';

const WORDS = ['harbour', 'lantern', 'quarry', 'meadow', 'copper', 'falcon', 'orchard', 'glacier'];

const history = (lengths: readonly number[], attachmentAt = -1): HistoryMessage[] =>
  lengths.map((length, index) => ({
    id: `msg_${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    text: Array.from({ length }, (_, word) => WORDS[(word + index) % WORDS.length]).join(' '),
    attachments: index === attachmentAt ? [{ name: 'a.txt', text: 'attached words '.repeat(length) }] : [],
  }));

/** The search as it was: every tail counted whole, from the oldest. */
const quadratic = (messages: readonly HistoryMessage[], checkpoint: Checkpoint | null, budget: number) => {
  for (let from = 0; from < messages.length - 1; from++) {
    const tail = messages.slice(from);
    const kept = tail.some((message) => message.id === checkpoint?.throughMessageId) ? checkpoint : null;
    if (historyTokens(tail, kept) <= budget) return from;
  }
  return Math.max(0, messages.length - 1);
};

describe('history work', () => {
  it('finds the fallback window the quadratic search found, with and without a checkpoint', () => {
    const messages = history([40, 10, 70, 5, 30, 25, 60, 8], 2);
    const checkpoints: (Checkpoint | null)[] = [
      null,
      { throughMessageId: 'msg_2', throughOffset: 50, summary: 'summary words here' },
      { throughMessageId: 'msg_5', throughOffset: 1_000_000, summary: 'a longer summary '.repeat(20) },
      { throughMessageId: 'msg_gone', throughOffset: 3, summary: 'stale' },
    ];
    for (const checkpoint of checkpoints)
      for (const budget of [1, 10, 40, 80, 120, 200, 300, 600, 5_000])
        expect([checkpoint?.throughMessageId, budget, recentThatFit(messages, checkpoint, budget)]).toEqual([
          checkpoint?.throughMessageId,
          budget,
          quadratic(messages, checkpoint, budget),
        ]);
    expect(recentThatFit(history([10]), null, 1)).toBe(0);
    expect(recentThatFit([], null, 1)).toBe(0);
  });

  it('plans no compaction for a history within budget, and keeps the newest message whole when it fits', () => {
    const messages = history([200, 200, 200, 150]);
    expect(planHistoryCompaction(messages, null, 10_000)).toBeNull();
    const plan = planHistoryCompaction(messages, null, historyTokens(messages, null) - 50)!;
    expect(plan).not.toBeNull();
    expect(plan.throughMessageId).not.toBe('msg_3');
  });

  it('plans with the counts it is given: only the summary and a straddled tail are counted', () => {
    const messages = history([200, 200, 200, 150], 1);
    const tokens = messageTokens(messages);
    expect(tokens).toEqual(messages.map((message) => historyTokens([message], null)));
    const total = historyTokens(messages, null);
    expect(viewTokens(messages, null, tokens)).toBe(total);
    const checkpoint = { throughMessageId: 'msg_1', throughOffset: 100, summary: 'the start, summarised' };
    expect(viewTokens(messages, checkpoint, tokens)).toBe(historyTokens(messages, checkpoint));
    expect(planHistoryCompaction(messages, null, total, tokens)).toBeNull();
    expect(planHistoryCompaction(messages, null, total - 1, tokens)).toEqual(
      planHistoryCompaction(messages, null, total - 1),
    );
    // Counts that say otherwise are believed: nothing was counted again.
    expect(viewTokens(messages, null, [1, 1, 1, 1])).toBe(4);
    expect(planHistoryCompaction(messages, null, 10, [1, 1, 1, 1])).toBeNull();
  });

  it('counts a message once: a turn that gets the same message object again does not count it again', async () => {
    const budget = 50;
    const long: { id: string; role: 'user'; text: string; attachments: [] } = {
      id: 'msg_long',
      role: 'user',
      text: 'short',
      attachments: [],
    };
    const messages: HistoryMessage[] = [long, ...history([5, 5])];
    expect(await pool.planHistoryCompaction(messages, null, budget)).toBeNull();
    // The object's text is never changed in a turn; changed here, it shows that the count remembered is used.
    long.text = WORDS.join(' ').repeat(40);
    expect(await pool.planHistoryCompaction(messages, null, budget)).toBeNull();
    expect(
      await pool.planHistoryCompaction([{ ...long }, ...messages.slice(1)], null, budget),
    ).not.toBeNull();
  });

  it("counts a checkpoint's summary once: the next turn from the same checkpoint does not count it again", async () => {
    const messages = history([40, 40]);
    // The messages and a short summary fit; with a long summary the view is over and the older message is summarised.
    const budget = historyTokens(messages, null) + 10;
    const checkpoint = {
      checkpointId: 'ckp_memo',
      throughMessageId: 'msg_0',
      throughOffset: 0,
      summary: 'short',
    };
    expect(await pool.planHistoryCompaction(messages, checkpoint, budget)).toBeNull();
    // A checkpoint's summary never changes; changed here, it shows that the count remembered is used.
    checkpoint.summary = WORDS.join(' ').repeat(40);
    expect(await pool.planHistoryCompaction(messages, checkpoint, budget)).toBeNull();
    expect(
      await pool.planHistoryCompaction(messages, { ...checkpoint, checkpointId: 'ckp_other' }, budget),
    ).not.toBeNull();
  });

  it('counts sections with their framing, and sizes a history by its characters', () => {
    expect(sectionTokens([])).toBe(0);
    expect(sectionTokens(['hello world', 'again'])).toBeGreaterThan(8);
    const messages = history([3], 0);
    expect(historySize(messages)).toBe(messages[0]!.text.length + messages[0]!.attachments[0]!.text!.length);
    expect(historySize(messages, { throughMessageId: 'msg_0', throughOffset: 0, summary: 'abcd' })).toBe(
      historySize(messages) + 4,
    );
  });
});
