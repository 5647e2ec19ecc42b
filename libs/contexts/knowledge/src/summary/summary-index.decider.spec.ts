import {
  decideSummaryIndex,
  summaryIndexDecider,
  type SummaryIndexCommand,
} from './summary-index.decider.js';
import type { SummaryIndexEvent, SummaryIndexState } from './summary-index.events.js';

const agentId = 'agt_1';
const fold = (events: readonly SummaryIndexEvent[]): SummaryIndexState =>
  events.reduce(summaryIndexDecider.evolve, summaryIndexDecider.initialState());
const run = (history: SummaryIndexEvent[], command: SummaryIndexCommand) => {
  const events = decideSummaryIndex(command, fold(history));
  history.push(...events);
  return events;
};
const complete = (buildId: string): SummaryIndexCommand => ({
  type: 'CompleteSummaryBuild',
  agentId,
  buildId,
  treeBlobId: `sha256-${buildId}`,
  nodeCount: 3,
  levels: 2,
  leafCount: 9,
  documentIds: ['doc_1'],
  builtAt: '2026-11-21T00:00:00.000Z',
  reusedSummaries: 0,
});

describe('summary index decider', () => {
  it('runs one build at a time, and only a completed build replaces the serving tree', () => {
    const history: SummaryIndexEvent[] = [];
    run(history, { type: 'RequestSummaryBuild', agentId, buildId: 'b1', full: false, model: 'offline-chat' });
    expect(() =>
      run(history, {
        type: 'RequestSummaryBuild',
        agentId,
        buildId: 'b2',
        full: true,
        model: 'offline-chat',
      }),
    ).toThrow(expect.objectContaining({ code: 'summary_build_running' }));
    // The worker's rebuild after pruning a deleted document: nothing while a build is under way.
    expect(
      run(history, {
        type: 'RequestSummaryBuild',
        agentId,
        buildId: 'b3',
        full: false,
        model: 'offline-chat',
        reason: 'document_deleted',
      }),
    ).toEqual([]);
    // Completion before the build started, or of another build, changes nothing.
    expect(run(history, complete('b1'))).toEqual([]);
    run(history, { type: 'StartSummaryBuild', agentId, buildId: 'b1', leafCount: 9, documentCount: 1 });
    expect(run(history, complete('b9'))).toEqual([]);
    expect(run(history, complete('b1')).map((event) => event.type)).toEqual(['SummaryBuildCompleted']);
    expect(fold(history)).toMatchObject({ build: null, serving: { buildId: 'b1', model: 'offline-chat' } });
  });

  it('cancels the build under way (the previous tree stays), and refuses a cancel with none', () => {
    const history: SummaryIndexEvent[] = [];
    run(history, { type: 'RequestSummaryBuild', agentId, buildId: 'b1', full: false, model: 'm' });
    run(history, { type: 'StartSummaryBuild', agentId, buildId: 'b1', leafCount: 9, documentCount: 1 });
    run(history, complete('b1'));
    run(history, { type: 'RequestSummaryBuild', agentId, buildId: 'b2', full: true, model: 'm' });
    run(history, { type: 'StartSummaryBuild', agentId, buildId: 'b2', leafCount: 9, documentCount: 1 });
    expect(run(history, { type: 'CancelSummaryBuild', agentId })).toEqual([
      { type: 'SummaryBuildCancelled', data: { agentId, buildId: 'b2' } },
    ]);
    // The builder that lost the race records nothing more.
    expect(
      run(history, {
        type: 'RecordSummaryBuildProgress',
        agentId,
        buildId: 'b2',
        level: 1,
        groupsDone: 1,
        groupsTotal: 2,
      }),
    ).toEqual([]);
    expect(run(history, complete('b2'))).toEqual([]);
    expect(fold(history).serving?.buildId).toBe('b1');
    expect(() => run(history, { type: 'CancelSummaryBuild', agentId })).toThrow(
      expect.objectContaining({ code: 'no_summary_build' }),
    );
  });

  it('prunes a covered document from the serving tree once', () => {
    const history: SummaryIndexEvent[] = [];
    run(history, { type: 'RequestSummaryBuild', agentId, buildId: 'b1', full: false, model: 'm' });
    run(history, { type: 'StartSummaryBuild', agentId, buildId: 'b1', leafCount: 9, documentCount: 1 });
    run(history, complete('b1'));
    const prune: SummaryIndexCommand = {
      type: 'PruneSummaryTree',
      agentId,
      buildId: 'b1',
      documentId: 'doc_1',
      treeBlobId: 'sha256-pruned',
      nodeCount: 0,
      removedNodes: 3,
    };
    expect(run(history, prune)).toHaveLength(1);
    expect(run(history, prune)).toEqual([]);
    expect(fold(history).serving).toMatchObject({ treeBlobId: 'sha256-pruned', documentIds: [] });
  });
});
