import { windowDays, windowResetsAt } from './usage-window.js';

describe('usage windows (UTC)', () => {
  const wednesday = new Date('2026-11-18T23:30:00Z');

  it('a day window is today only and resets at midnight UTC', () => {
    expect(windowDays('day', wednesday)).toEqual(['2026-11-18']);
    expect(windowResetsAt('day', wednesday)).toBe('2026-11-19T00:00:00.000Z');
  });

  it('a week window runs from Monday and resets the next Monday', () => {
    expect(windowDays('week', wednesday)).toEqual(['2026-11-16', '2026-11-17', '2026-11-18']);
    expect(windowResetsAt('week', wednesday)).toBe('2026-11-23T00:00:00.000Z');
    const sunday = new Date('2026-11-22T10:00:00Z');
    expect(windowDays('week', sunday)).toHaveLength(7);
    expect(windowResetsAt('week', sunday)).toBe('2026-11-23T00:00:00.000Z');
  });

  it('a month window runs from the first and resets on the first of the next month', () => {
    const days = windowDays('month', wednesday);
    expect(days[0]).toBe('2026-11-01');
    expect(days).toHaveLength(18);
    expect(windowResetsAt('month', new Date('2026-12-31T12:00:00Z'))).toBe('2027-01-01T00:00:00.000Z');
  });
});
