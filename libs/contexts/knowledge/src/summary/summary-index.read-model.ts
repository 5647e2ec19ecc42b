// The section-summary index read model, one row per Agent: what serves searches, and the latest build with its
// progress (the status route shows it). It is also the summary builder's durable to-do list (`work`). Built by
// projections/knowledge/summary-index.projector.ts.
import { defineReadModel } from '#eventsourcing';
import type { SummaryTreeRecord } from './summary-index.events.js';

export interface SummaryBuildView {
  readonly buildId: string;
  readonly full: boolean;
  readonly model: string;
  readonly state: 'requested' | 'running' | 'completed' | 'cancelled' | 'failed';
  readonly attempt: number;
  readonly level: number;
  readonly groupsDone: number;
  readonly groupsTotal: number;
  readonly leafCount: number | null;
  readonly documentCount: number | null;
  readonly reusedSummaries: number | null;
  readonly error: { readonly reason: string; readonly message: string } | null;
  readonly requestedAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

/** The tree that serves searches (its record, as the build completed and prunes changed it). */
export type SummaryServingView = SummaryTreeRecord;

export interface SummaryIndexView {
  readonly id: string;
  readonly serving: SummaryServingView | null;
  /** The latest build, under way or finished. */
  readonly build: SummaryBuildView | null;
  /** Deleted documents whose summaries are still to leave the serving tree. */
  readonly pendingPrunes: readonly string[];
  /** The Agent is gone: its tree is to be removed. */
  readonly purge: boolean;
  /** The builder has something to do for this Agent. */
  readonly work: boolean;
  readonly updatedAt: string;
}

export const SUMMARY_INDEXES = 'knowledge_summary_indexes';
export const SUMMARY_INDEX_PROJECTION = 'knowledge-summary-index';

export const SUMMARY_INDEXES_READ_MODEL = defineReadModel<SummaryIndexView>({
  name: SUMMARY_INDEXES,
  projection: SUMMARY_INDEX_PROJECTION,
  indexes: [{ fields: ['work'] }],
});
