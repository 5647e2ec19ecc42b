// The section-summary index of an Agent: a tree of summaries over the leaf chunks of every Ready document the Agent
// can search (its own, its Space's, Global). Building is a sequence of facts: requested (incremental, reusing the
// summaries of groups whose members did not change, or full), started, progressed level by level, and completed,
// cancelled or failed. Only a completed build replaces the one serving searches, so a cancelled or failed build
// leaves the previous tree serving. The tree itself (summaries, their embeddings, which documents each covers) lives
// in the blob store; events carry its address, never its text, so pruning or replacing a tree removes that text for
// good.
import { eventTypesOf, type DomainEvent } from '#kernel';

type Id = { readonly agentId: string; readonly buildId: string };

/** What a completed build serves: its tree's blob and its shape. */
export interface SummaryTreeRecord {
  readonly buildId: string;
  readonly treeBlobId: string;
  readonly model: string;
  readonly nodeCount: number;
  readonly levels: number;
  readonly leafCount: number;
  readonly documentIds: readonly string[];
  readonly builtAt: string;
}

export type SummaryIndexEvent =
  | DomainEvent<
      'SummaryBuildRequested',
      Id & {
        /** Full: summarise every group again; otherwise reuse the summaries of groups that did not change. */
        readonly full: boolean;
        /** The chat model that writes the summaries. */
        readonly model: string;
        /** `requested` by a caller, or `document_deleted`: the platform rebuilds what a deletion pruned. */
        readonly reason: 'requested' | 'document_deleted';
      }
    >
  | DomainEvent<
      'SummaryBuildStarted',
      Id & { readonly attempt: number; readonly leafCount: number; readonly documentCount: number }
    >
  | DomainEvent<
      'SummaryBuildProgressed',
      Id & { readonly level: number; readonly groupsDone: number; readonly groupsTotal: number }
    >
  | DomainEvent<
      'SummaryBuildCompleted',
      Id & Omit<SummaryTreeRecord, 'buildId'> & { readonly reusedSummaries: number }
    >
  | DomainEvent<'SummaryBuildCancelled', Id>
  | DomainEvent<'SummaryBuildFailed', Id & { readonly reason: string; readonly message: string }>
  /** A document the serving tree covered was deleted: every summary that covered it left the tree. */
  | DomainEvent<
      'SummaryTreePruned',
      Id & {
        readonly documentId: string;
        readonly treeBlobId: string;
        readonly nodeCount: number;
        readonly removedNodes: number;
      }
    >
  /** The Agent was deleted: its tree left the blob store. */
  | DomainEvent<'SummaryIndexDeleted', { readonly agentId: string }>;

/** Every type of the union, checked complete by the compiler. */
export const SUMMARY_INDEX_EVENT_TYPES = eventTypesOf<SummaryIndexEvent>({
  SummaryBuildRequested: true,
  SummaryBuildStarted: true,
  SummaryBuildProgressed: true,
  SummaryBuildCompleted: true,
  SummaryBuildCancelled: true,
  SummaryBuildFailed: true,
  SummaryTreePruned: true,
  SummaryIndexDeleted: true,
});

export interface ActiveSummaryBuild {
  readonly buildId: string;
  readonly full: boolean;
  readonly model: string;
  readonly status: 'requested' | 'running';
  readonly attempts: number;
}

export interface SummaryIndexState {
  readonly agentId: string | null;
  readonly serving: SummaryTreeRecord | null;
  readonly build: ActiveSummaryBuild | null;
  readonly deleted: boolean;
}

export const summaryIndexStreamId = (agentId: string): string => `knowledge-summary-index-${agentId}`;

export const initialSummaryIndexState = (): SummaryIndexState => ({
  agentId: null,
  serving: null,
  build: null,
  deleted: false,
});

export function evolveSummaryIndex(state: SummaryIndexState, event: SummaryIndexEvent): SummaryIndexState {
  const { agentId } = event.data;
  switch (event.type) {
    case 'SummaryBuildRequested':
      return {
        ...state,
        agentId,
        deleted: false,
        build: {
          buildId: event.data.buildId,
          full: event.data.full,
          model: event.data.model,
          status: 'requested',
          attempts: 0,
        },
      };
    case 'SummaryBuildStarted':
      return state.build?.buildId === event.data.buildId
        ? { ...state, build: { ...state.build, status: 'running', attempts: event.data.attempt } }
        : state;
    case 'SummaryBuildProgressed':
      return state;
    case 'SummaryBuildCompleted': {
      const { agentId: _agentId, reusedSummaries: _reused, ...tree } = event.data;
      return { ...state, build: null, serving: tree };
    }
    case 'SummaryBuildCancelled':
    case 'SummaryBuildFailed':
      return state.build?.buildId === event.data.buildId ? { ...state, build: null } : state;
    case 'SummaryTreePruned':
      return state.serving?.buildId === event.data.buildId
        ? {
            ...state,
            serving: {
              ...state.serving,
              treeBlobId: event.data.treeBlobId,
              nodeCount: event.data.nodeCount,
              documentIds: state.serving.documentIds.filter((id) => id !== event.data.documentId),
            },
          }
        : state;
    case 'SummaryIndexDeleted':
      return { agentId, serving: null, build: null, deleted: true };
  }
}
