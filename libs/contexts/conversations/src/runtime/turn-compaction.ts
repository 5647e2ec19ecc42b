// Compaction within a turn: when the history outgrows the budget left beside the fixed sections, its oldest part is
// summarised by the Agent's model (recorded as usage `compaction`) into a checkpoint (the pure boundary is
// compaction/compaction-boundary.ts). A summary that fails leaves the turn usable: it sends the most recent messages
// that fit, and the `compaction` event says so. The message being answered stays verbatim whenever it fits alone.
import { Injectable } from '@nestjs/common';
import { ModelGateway, type CallScope } from '#model-gateway';
import { newId } from '#kernel';
import type { ModelConfig } from '#model-providers';
import type { Checkpoint, HistoryMessage } from '../compaction/compaction-boundary.js';
import {
  historyViewTokens,
  planHistoryCompaction,
  recentThatFit,
  sectionTokens,
  viewTokens,
} from '../compaction/history-pool.js';
import type { NewCheckpoint } from '../conversation-records.js';
import type { TurnEmitter } from './turn-events.js';
import { SUMMARY_INSTRUCTIONS, sectionsBound } from './turn-prompt.js';

export type TurnCheckpoint = Checkpoint & { readonly checkpointId: string };

export interface CompactionInput {
  readonly history: readonly HistoryMessage[];
  readonly current: TurnCheckpoint | null;
  /** Tokens the whole prompt may take: the fixed sections and the history. */
  readonly budget: number;
  /** The fixed sections (system prompt, providers): counted only when the history may not fit beside them. */
  readonly sections: readonly string[];
  readonly model: ModelConfig;
  readonly scope: CallScope;
  readonly signal: AbortSignal;
  /** Keeps a new checkpoint where the conversation lives (the log, or memory for an incognito one). */
  readonly save: (checkpoint: NewCheckpoint) => Promise<void>;
  readonly emit: TurnEmitter;
}

@Injectable()
export class TurnCompaction {
  constructor(private readonly gateway: ModelGateway) {}

  async compact(input: CompactionInput): Promise<{
    history: readonly HistoryMessage[];
    checkpoint: TurnCheckpoint | null;
  }> {
    const { history, current, model, scope, signal, emit } = input;
    // Counting and planning are linear in the history (a cut inside a message, O(n log n)): in the worker pool. The
    // history's counts are remembered from turn to turn (history-pool.ts), the sections' (retrieved sources, new each
    // turn) are not: the history is first measured against the budget less the sections' bytes, which bound their
    // tokens from above; a history that fits there fits beside their count, and they are not counted (a 1,000-message
    // turn's sections: ~0.5 ms).
    const bounded = Math.max(256, input.budget - sectionsBound(input.sections));
    if ((await historyViewTokens(history, current)) <= bounded) return { history, checkpoint: current };
    const historyBudget = Math.max(256, input.budget - (await sectionTokens(input.sections)));
    const plan = await planHistoryCompaction(history, current, historyBudget);
    if (!plan) return { history, checkpoint: current };
    try {
      const summary = await this.gateway.chat(
        scope,
        model,
        {
          messages: [
            { role: 'system', content: SUMMARY_INSTRUCTIONS },
            { role: 'user', content: plan.toSummarise },
          ],
          max_completion_tokens: Math.max(64, Math.floor(historyBudget / 4)),
        },
        signal,
        'compaction',
      );
      const checkpoint = {
        checkpointId: newId('ckp'),
        throughMessageId: plan.throughMessageId,
        throughOffset: plan.throughOffset,
        summary: summary.message.content ?? '',
      };
      const tokensAfter = await viewTokens(history, checkpoint);
      await input.save({ ...checkpoint, tokensBefore: plan.tokensBefore, tokensAfter, model: model.key });
      await emit({
        event: 'compaction',
        data: {
          checkpointId: checkpoint.checkpointId,
          throughMessageId: checkpoint.throughMessageId,
          throughOffset: checkpoint.throughOffset,
          tokensBefore: plan.tokensBefore,
          tokensAfter,
        },
      });
      return { history, checkpoint };
    } catch (error) {
      if (signal.aborted) throw error;
      const kept = history.slice(await recentThatFit(history, current, historyBudget));
      await emit({
        event: 'compaction',
        data: {
          failed: true,
          fallback: 'shorter_window',
          message: `the history could not be summarised; this turn sends only the ${kept.length} most recent messages`,
        },
      });
      return { history: kept, checkpoint: null };
    }
  }
}
