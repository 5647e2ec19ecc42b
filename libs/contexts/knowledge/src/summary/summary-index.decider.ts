// Commands of the section-summary index and the pure decision over them. One build at a time per Agent; the
// builder's own commands (start, progress, complete, fail) name the build they work on, so a builder that lost a
// race with a cancel (or a newer build) changes nothing.
import { ConflictError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveSummaryIndex,
  initialSummaryIndexState,
  type SummaryIndexEvent,
  type SummaryIndexState,
  type SummaryTreeRecord,
} from './summary-index.events.js';

type Build = { readonly agentId: string; readonly buildId: string };

export type SummaryIndexCommand =
  | (Build & {
      readonly type: 'RequestSummaryBuild';
      readonly full: boolean;
      readonly model: string;
      readonly reason?: 'requested' | 'document_deleted';
    })
  | (Build & {
      readonly type: 'StartSummaryBuild';
      readonly leafCount: number;
      readonly documentCount: number;
    })
  | (Build & {
      readonly type: 'RecordSummaryBuildProgress';
      readonly level: number;
      readonly groupsDone: number;
      readonly groupsTotal: number;
    })
  | (Build &
      Omit<SummaryTreeRecord, 'buildId' | 'model'> & {
        readonly type: 'CompleteSummaryBuild';
        readonly reusedSummaries: number;
      })
  | { readonly type: 'CancelSummaryBuild'; readonly agentId: string }
  | (Build & { readonly type: 'FailSummaryBuild'; readonly reason: string; readonly message: string })
  | (Build & {
      readonly type: 'PruneSummaryTree';
      readonly documentId: string;
      readonly treeBlobId: string;
      readonly nodeCount: number;
      readonly removedNodes: number;
    })
  | { readonly type: 'DeleteSummaryIndex'; readonly agentId: string };

/** The build the command is about, when it is the index's current one. */
const buildOf = (command: SummaryIndexCommand, state: SummaryIndexState) =>
  'buildId' in command && state.build?.buildId === command.buildId ? state.build : null;

type SummaryIndexOf<Type extends SummaryIndexCommand['type']> = Extract<
  SummaryIndexCommand,
  { readonly type: Type }
>;

function requestSummaryBuild(
  command: SummaryIndexOf<'RequestSummaryBuild'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  // The rebuild after a deletion pruned the tree is no conflict: the build under way reads the documents as now.
  if (state.build && command.reason === 'document_deleted') return [];
  if (state.build)
    throw new ConflictError(
      'summary_build_running',
      `a summary index build (${state.build.buildId}) is already under way for this Agent; cancel it first`,
    );
  return [
    {
      type: 'SummaryBuildRequested',
      data: {
        agentId,
        buildId: command.buildId,
        full: command.full,
        model: command.model,
        reason: command.reason ?? 'requested',
      },
    },
  ];
}

function startSummaryBuild(
  command: SummaryIndexOf<'StartSummaryBuild'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  const active = buildOf(command, state);
  return active
    ? [
        {
          type: 'SummaryBuildStarted',
          data: {
            agentId,
            buildId: command.buildId,
            attempt: active.attempts + 1,
            leafCount: command.leafCount,
            documentCount: command.documentCount,
          },
        },
      ]
    : [];
}

function recordSummaryBuildProgress(
  command: SummaryIndexOf<'RecordSummaryBuildProgress'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  const active = buildOf(command, state);
  return active?.status === 'running'
    ? [
        {
          type: 'SummaryBuildProgressed',
          data: {
            agentId,
            buildId: command.buildId,
            level: command.level,
            groupsDone: command.groupsDone,
            groupsTotal: command.groupsTotal,
          },
        },
      ]
    : [];
}

function completeSummaryBuild(
  command: SummaryIndexOf<'CompleteSummaryBuild'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const active = buildOf(command, state);
  if (active?.status !== 'running') return [];
  // Field by field: the stored event's shape is its own (summary-index.events.ts), not the command's.
  return [
    {
      type: 'SummaryBuildCompleted',
      data: {
        agentId: command.agentId,
        buildId: command.buildId,
        treeBlobId: command.treeBlobId,
        model: active.model,
        nodeCount: command.nodeCount,
        levels: command.levels,
        leafCount: command.leafCount,
        documentIds: command.documentIds,
        builtAt: command.builtAt,
        reusedSummaries: command.reusedSummaries,
      },
    },
  ];
}

function cancelSummaryBuild(
  command: SummaryIndexOf<'CancelSummaryBuild'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  if (!state.build)
    throw new ConflictError('no_summary_build', 'no summary index build is under way for this Agent');
  return [{ type: 'SummaryBuildCancelled', data: { agentId, buildId: state.build.buildId } }];
}

function failSummaryBuild(
  command: SummaryIndexOf<'FailSummaryBuild'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  const active = buildOf(command, state);
  return active
    ? [
        {
          type: 'SummaryBuildFailed',
          data: { agentId, buildId: command.buildId, reason: command.reason, message: command.message },
        },
      ]
    : [];
}

function pruneSummaryTree(
  command: SummaryIndexOf<'PruneSummaryTree'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  return state.serving?.buildId === command.buildId && state.serving.documentIds.includes(command.documentId)
    ? [
        {
          type: 'SummaryTreePruned',
          data: {
            agentId,
            buildId: command.buildId,
            documentId: command.documentId,
            treeBlobId: command.treeBlobId,
            nodeCount: command.nodeCount,
            removedNodes: command.removedNodes,
          },
        },
      ]
    : [];
}

function deleteSummaryIndex(
  command: SummaryIndexOf<'DeleteSummaryIndex'>,
  state: SummaryIndexState,
): SummaryIndexEvent[] {
  const { agentId } = command;
  return state.agentId && !state.deleted ? [{ type: 'SummaryIndexDeleted', data: { agentId } }] : [];
}

export const decideSummaryIndex = decideByType<SummaryIndexState, SummaryIndexCommand, SummaryIndexEvent>({
  RequestSummaryBuild: requestSummaryBuild,
  StartSummaryBuild: startSummaryBuild,
  RecordSummaryBuildProgress: recordSummaryBuildProgress,
  CompleteSummaryBuild: completeSummaryBuild,
  CancelSummaryBuild: cancelSummaryBuild,
  FailSummaryBuild: failSummaryBuild,
  PruneSummaryTree: pruneSummaryTree,
  DeleteSummaryIndex: deleteSummaryIndex,
});

export const summaryIndexDecider: Decider<SummaryIndexState, SummaryIndexCommand, SummaryIndexEvent> = {
  initialState: initialSummaryIndexState,
  evolve: evolveSummaryIndex,
  decide: decideSummaryIndex,
};
