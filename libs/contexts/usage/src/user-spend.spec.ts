import { userWindow, WEEK_MS } from './user-spend.js';

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
