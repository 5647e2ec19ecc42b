import { replayRunDecider, type RecordReplay } from './replay-run.decider.js';

const { decide, evolve, initialState } = replayRunDecider;

const run: RecordReplay = {
  replayId: 'rpl_1',
  model: 'offline-chat',
  retrieval: 'recorded',
  selection: { agentId: 'agt_1', limit: 5 },
  messageIds: ['msg_1', 'msg_2'],
  replayed: 2,
};

describe('replay run decider', () => {
  it('records a run', () => {
    expect(decide(run, initialState())).toEqual([{ type: 'ReplayRan', data: run }]);
  });

  it('records a run once', () => {
    const state = evolve(initialState(), { type: 'ReplayRan', data: run });
    expect(decide(run, state)).toEqual([]);
  });
});
