import { projectionRebuildDecider } from './projection-rebuild.decider.js';

const { decide, evolve, initialState } = projectionRebuildDecider;

describe('projection rebuild decider', () => {
  it('records a request when none is under way', () => {
    expect(decide({ projection: 'agents', underWay: false }, initialState())).toEqual([
      { type: 'ProjectionRebuildRequested', data: { projection: 'agents' } },
    ]);
  });

  it('records nothing while a rebuild is requested or building', () => {
    expect(decide({ projection: 'agents', underWay: true }, initialState())).toEqual([]);
  });

  it('counts the requests it has recorded', () => {
    const event = { type: 'ProjectionRebuildRequested', data: { projection: 'agents' } } as const;
    expect(evolve(evolve(initialState(), event), event)).toEqual({ requests: 2 });
  });
});
