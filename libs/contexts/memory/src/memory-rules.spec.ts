import { cosine, memoryApplies, sharedMemoryApplies, type MemoryTurn } from './memory-rules.js';

const agent: MemoryTurn['agent'] = {
  memoryEnabled: true,
  sharedMemoryEnabled: true,
  isPublic: false,
  isPersonal: false,
  spaceId: 'spc_1',
};
const turn: MemoryTurn = { agent, keepsTraces: true, streamed: false, userId: 'usr_1' };

describe('when memory applies', () => {
  it('applies to a turn of a signed-in user on an Agent with memory, in a conversation that keeps traces', () => {
    expect(memoryApplies(turn)).toBe(true);
  });

  it.each([
    ['a public Agent', { ...turn, agent: { ...agent, isPublic: true } }],
    ['an Agent with memory off', { ...turn, agent: { ...agent, memoryEnabled: false } }],
    ['an anonymous user', { ...turn, userId: null }],
    ['an incognito conversation (it keeps no traces)', { ...turn, keepsTraces: false }],
    ['an API-driven streamed turn', { ...turn, streamed: true }],
  ])('never applies to %s', (_case, subject) => expect(memoryApplies(subject)).toBe(false));

  it('keeps every memory personal without sharedMemoryEnabled, or on a personal Agent (no Space)', () => {
    expect(sharedMemoryApplies(agent)).toBe(true);
    expect(sharedMemoryApplies({ ...agent, sharedMemoryEnabled: false })).toBe(false);
    expect(sharedMemoryApplies({ ...agent, isPersonal: true, spaceId: null })).toBe(false);
  });

  it('measures similarity by cosine (0 for a zero vector)', () => {
    expect(cosine([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosine([1, 0], [0, 1])).toBeCloseTo(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
