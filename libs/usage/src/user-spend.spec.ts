import { ValidationError } from '#kernel';
import { userSpendDecider, userWindow, WEEK_MS, type UserSpendLimit } from './user-spend.js';

const limit: UserSpendLimit = { tokens: 1000, costUsd: null, overage: 'block' };

describe('userSpendDecider', () => {
  it('records a change, nothing for the same limit, and a removal', () => {
    const [set] = userSpendDecider.decide({ userId: 'usr_1', limit }, { limit: null });
    expect(set).toEqual({ type: 'UserSpendLimitChanged', data: { userId: 'usr_1', limit } });
    const state = userSpendDecider.evolve({ limit: null }, set!);
    expect(userSpendDecider.decide({ userId: 'usr_1', limit: { ...limit } }, state)).toEqual([]);
    expect(
      userSpendDecider.decide({ userId: 'usr_1', limit: { ...limit, overage: 'allow' } }, state),
    ).toHaveLength(1);
    expect(userSpendDecider.decide({ userId: 'usr_1', limit: null }, state)).toEqual([
      { type: 'UserSpendLimitChanged', data: { userId: 'usr_1', limit: null } },
    ]);
  });

  it('refuses a limit with neither tokens nor cost', () => {
    expect(() =>
      userSpendDecider.decide(
        { userId: 'usr_1', limit: { tokens: null, costUsd: null, overage: 'allow' } },
        { limit: null },
      ),
    ).toThrow(ValidationError);
  });
});

describe('userWindow', () => {
  it('starts at the anchor plus whole weeks and resets seven days later, at the boundary too', () => {
    const anchor = '2026-11-18T15:30:00.000Z';
    expect(userWindow(anchor, new Date(anchor)).start.toISOString()).toBe(anchor);
    const boundary = new Date(Date.parse(anchor) + WEEK_MS);
    expect(userWindow(anchor, boundary).start).toEqual(boundary);
    const justBefore = new Date(boundary.getTime() - 1);
    expect(userWindow(anchor, justBefore).resetsAt).toEqual(boundary);
  });
});
