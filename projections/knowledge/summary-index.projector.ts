// Read model of the section-summary indexes, one row per Agent: what serves searches, and the latest build with its
// progress (the status route shows it). It is also the summary builder's durable to-do list (`work`): a build
// requested or running, summaries to prune because a covered document was deleted, a tree to remove because its
// Agent was deleted. Which Agents' trees cover a document is kept beside it, so a deletion finds them.
import type { EventEnvelope } from '../../libs/kernel/src/index.js';
import type { ProjectionContext, Projector } from '../../libs/eventsourcing/src/projector.js';
import type { WriteOp } from '../../libs/read-store/src/read-store.port.js';
import type { AgentEvent } from '../../libs/agents/src/agent.events.js';
import type { DocumentEvent } from '../../libs/knowledge/src/document.events.js';
import {
  SUMMARY_INDEX_EVENT_TYPES,
  type SummaryIndexEvent,
  type SummaryTreeRecord,
} from '../../libs/knowledge/src/summary/summary-index.events.js';

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

interface DocumentCoverage {
  readonly id: string;
  readonly agentIds: readonly string[];
  readonly deleted: boolean;
}

export const SUMMARY_INDEXES = 'knowledge_summary_indexes';
const DOCUMENT_COVERAGE = 'knowledge_summary_document_coverage';
export const SUMMARY_INDEX_PROJECTION = 'knowledge-summary-index';

const active = (build: SummaryBuildView | null): boolean =>
  build?.state === 'requested' || build?.state === 'running';

const withWork = (view: SummaryIndexView): SummaryIndexView => ({
  ...view,
  work: view.purge || active(view.build) || view.pendingPrunes.length > 0,
});

export const summaryIndexProjector: Projector = {
  name: SUMMARY_INDEX_PROJECTION,
  version: 1,
  collections: [{ name: SUMMARY_INDEXES, indexes: [{ fields: ['work'] }] }, { name: DOCUMENT_COVERAGE }],
  eventTypes: [...SUMMARY_INDEX_EVENT_TYPES, 'DocumentDeleted', 'AgentDeleted'],
  async project(envelope: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    const at = envelope.metadata.occurredAt;
    const event = envelope as unknown as SummaryIndexEvent | DocumentEvent | AgentEvent;
    const row = async (agentId: string) => context.get<SummaryIndexView>(SUMMARY_INDEXES, agentId);
    const save = (view: SummaryIndexView): WriteOp => ({
      kind: 'upsert',
      collection: SUMMARY_INDEXES,
      doc: { ...withWork({ ...view, updatedAt: at }) },
    });
    const coverage = async (documentId: string): Promise<DocumentCoverage> =>
      (await context.get<DocumentCoverage>(DOCUMENT_COVERAGE, documentId)) ?? {
        id: documentId,
        agentIds: [],
        deleted: false,
      };

    switch (event.type) {
      case 'DocumentDeleted': {
        const covered = await coverage(event.data.documentId);
        const ops: WriteOp[] = [
          { kind: 'upsert', collection: DOCUMENT_COVERAGE, doc: { ...covered, agentIds: [], deleted: true } },
        ];
        for (const agentId of covered.agentIds) {
          const view = await row(agentId);
          if (view?.serving?.documentIds.includes(covered.id) && !view.pendingPrunes.includes(covered.id))
            ops.push(save({ ...view, pendingPrunes: [...view.pendingPrunes, covered.id] }));
        }
        return ops;
      }
      case 'AgentDeleted': {
        const view = await row(event.data.agentId);
        return view ? [save({ ...view, purge: true })] : [];
      }
      case 'SummaryIndexDeleted':
        return [{ kind: 'delete', collection: SUMMARY_INDEXES, id: event.data.agentId }];
      default:
        break;
    }

    const summary = event as Exclude<SummaryIndexEvent, { type: 'SummaryIndexDeleted' }>;
    const { agentId } = summary.data;
    const view: SummaryIndexView = (await row(agentId)) ?? {
      id: agentId,
      serving: null,
      build: null,
      pendingPrunes: [],
      purge: false,
      work: false,
      updatedAt: at,
    };
    const build = view.build?.buildId === summary.data.buildId ? view.build : null;
    const patchBuild = (set: Partial<SummaryBuildView>): WriteOp[] =>
      build ? [save({ ...view, build: { ...build, ...set } })] : [];
    switch (summary.type) {
      case 'SummaryBuildRequested':
        return [
          save({
            ...view,
            build: {
              buildId: summary.data.buildId,
              full: summary.data.full,
              model: summary.data.model,
              state: 'requested',
              attempt: 0,
              level: 0,
              groupsDone: 0,
              groupsTotal: 0,
              leafCount: null,
              documentCount: null,
              reusedSummaries: null,
              error: null,
              requestedAt: at,
              startedAt: null,
              finishedAt: null,
            },
          }),
        ];
      case 'SummaryBuildStarted':
        return patchBuild({
          state: 'running',
          attempt: summary.data.attempt,
          leafCount: summary.data.leafCount,
          documentCount: summary.data.documentCount,
          level: 0,
          groupsDone: 0,
          groupsTotal: 0,
          startedAt: at,
        });
      case 'SummaryBuildProgressed':
        return patchBuild({
          level: summary.data.level,
          groupsDone: summary.data.groupsDone,
          groupsTotal: summary.data.groupsTotal,
        });
      case 'SummaryBuildCompleted': {
        const { agentId: _agentId, reusedSummaries, ...tree } = summary.data;
        const ops: WriteOp[] = [];
        // A document deleted while the build read it: its summaries leave the new tree too.
        const prunes: string[] = [];
        for (const documentId of tree.documentIds) {
          const covered = await coverage(documentId);
          if (covered.deleted) prunes.push(documentId);
          else if (!covered.agentIds.includes(agentId))
            ops.push({
              kind: 'upsert',
              collection: DOCUMENT_COVERAGE,
              doc: { ...covered, agentIds: [...covered.agentIds, agentId] },
            });
        }
        ops.push(
          save({
            ...view,
            serving: { ...tree },
            pendingPrunes: prunes,
            build: build && { ...build, state: 'completed', reusedSummaries, finishedAt: at },
          }),
        );
        return ops;
      }
      case 'SummaryBuildCancelled':
        return patchBuild({ state: 'cancelled', finishedAt: at });
      case 'SummaryBuildFailed':
        return patchBuild({
          state: 'failed',
          error: { reason: summary.data.reason, message: summary.data.message },
          finishedAt: at,
        });
      case 'SummaryTreePruned':
        return view.serving?.buildId === summary.data.buildId
          ? [
              save({
                ...view,
                serving: {
                  ...view.serving,
                  treeBlobId: summary.data.treeBlobId,
                  nodeCount: summary.data.nodeCount,
                  documentIds: view.serving.documentIds.filter((id) => id !== summary.data.documentId),
                },
                pendingPrunes: view.pendingPrunes.filter((id) => id !== summary.data.documentId),
              }),
            ]
          : [
              save({
                ...view,
                pendingPrunes: view.pendingPrunes.filter((id) => id !== summary.data.documentId),
              }),
            ];
      default:
        return [];
    }
  },
};
