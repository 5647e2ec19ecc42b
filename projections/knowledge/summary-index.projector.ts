// Builds the section-summary index read model (libs/contexts/knowledge/src/summary/summary-index.read-model.ts), one row per
// Agent, which is also the summary builder's durable to-do list (`work`): a build requested or running, summaries to
// prune because a covered document was deleted, a tree to remove because its Agent was deleted. Which Agents' trees
// cover a document is kept beside it, so a deletion finds them.
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { AgentEvent } from '#agents';
import type { DocumentEvent, SummaryIndexEvent } from '#knowledge';
import {
  SUMMARY_INDEXES,
  SUMMARY_INDEXES_READ_MODEL,
  type SummaryBuildView,
  type SummaryIndexView,
} from '#knowledge';

interface DocumentCoverage {
  readonly id: string;
  readonly agentIds: readonly string[];
  readonly deleted: boolean;
}

const DOCUMENT_COVERAGE = 'knowledge_summary_document_coverage';

const active = (build: SummaryBuildView | null): boolean =>
  build?.state === 'requested' || build?.state === 'running';

const withWork = (view: SummaryIndexView): SummaryIndexView => ({
  ...view,
  work: view.purge || active(view.build) || view.pendingPrunes.length > 0,
});

type BuildEvent = Exclude<SummaryIndexEvent, { type: 'SummaryIndexDeleted' }>;
type Read =
  | SummaryIndexEvent
  | Extract<DocumentEvent, { type: 'DocumentDeleted' }>
  | Extract<AgentEvent, { type: 'AgentDeleted' }>;

const save = (view: SummaryIndexView, at: string): WriteOp => ({
  kind: 'upsert',
  collection: SUMMARY_INDEXES,
  doc: { ...withWork({ ...view, updatedAt: at }) },
});
const row = (context: ProjectionContext, agentId: string) =>
  context.get<SummaryIndexView>(SUMMARY_INDEXES, agentId);
const coverage = async (context: ProjectionContext, documentId: string): Promise<DocumentCoverage> =>
  (await context.get<DocumentCoverage>(DOCUMENT_COVERAGE, documentId)) ?? {
    id: documentId,
    agentIds: [],
    deleted: false,
  };

// Over 100 lines on purpose: one case per build event, each writing the build's view.
async function projectBuild(summary: EnvelopeOf<BuildEvent>, context: ProjectionContext): Promise<WriteOp[]> {
  const at = summary.metadata.occurredAt;
  const { agentId } = summary.data;
  const view: SummaryIndexView = (await row(context, agentId)) ?? {
    id: agentId,
    serving: null,
    build: null,
    pendingPrunes: [],
    purge: false,
    work: false,
    updatedAt: at,
  };
  const keep = (next: SummaryIndexView) => save(next, at);
  const build = view.build?.buildId === summary.data.buildId ? view.build : null;
  const patchBuild = (set: Partial<SummaryBuildView>): WriteOp[] =>
    build ? [keep({ ...view, build: { ...build, ...set } })] : [];
  switch (summary.type) {
    case 'SummaryBuildRequested':
      return [
        keep({
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
        const covered = await coverage(context, documentId);
        if (covered.deleted) prunes.push(documentId);
        else if (!covered.agentIds.includes(agentId))
          ops.push({
            kind: 'upsert',
            collection: DOCUMENT_COVERAGE,
            doc: { ...covered, agentIds: [...covered.agentIds, agentId] },
          });
      }
      ops.push(
        keep({
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
            keep({
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
            keep({
              ...view,
              pendingPrunes: view.pendingPrunes.filter((id) => id !== summary.data.documentId),
            }),
          ];
  }
}

export const summaryIndexProjector = defineProjector<Read>({
  name: SUMMARY_INDEXES_READ_MODEL.projection,
  version: 1,
  collections: [SUMMARY_INDEXES_READ_MODEL, { name: DOCUMENT_COVERAGE }],
  on: {
    DocumentDeleted: async ({ data, metadata }, context) => {
      const covered = await coverage(context, data.documentId);
      const ops: WriteOp[] = [
        { kind: 'upsert', collection: DOCUMENT_COVERAGE, doc: { ...covered, agentIds: [], deleted: true } },
      ];
      for (const agentId of covered.agentIds) {
        const view = await row(context, agentId);
        if (view?.serving?.documentIds.includes(covered.id) && !view.pendingPrunes.includes(covered.id))
          ops.push(
            save({ ...view, pendingPrunes: [...view.pendingPrunes, covered.id] }, metadata.occurredAt),
          );
      }
      return ops;
    },
    AgentDeleted: async ({ data, metadata }, context) => {
      const view = await row(context, data.agentId);
      return view ? [save({ ...view, purge: true }, metadata.occurredAt)] : [];
    },
    SummaryIndexDeleted: ({ data }) => [{ kind: 'delete', collection: SUMMARY_INDEXES, id: data.agentId }],
    SummaryBuildRequested: projectBuild,
    SummaryBuildStarted: projectBuild,
    SummaryBuildProgressed: projectBuild,
    SummaryBuildCompleted: projectBuild,
    SummaryBuildCancelled: projectBuild,
    SummaryBuildFailed: projectBuild,
    SummaryTreePruned: projectBuild,
  },
});
