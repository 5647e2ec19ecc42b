// Usage-limit windows in UTC: a day, an ISO week (from Monday) or a calendar month.
import type { UsageLimit } from '#access';
import { utcDay } from './usage.events.js';

const DAY_MS = 86_400_000;

/** The days of the window that contains `now`, from its first day to today, as `YYYY-MM-DD`. */
export function windowDays(window: UsageLimit['window'], now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  let start = today;
  if (window === 'week') start = today - ((now.getUTCDay() + 6) % 7) * DAY_MS;
  if (window === 'month') start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const days: string[] = [];
  for (let at = start; at <= today; at += DAY_MS) days.push(utcDay(new Date(at)));
  return days;
}

/** When the window containing `now` ends (and the next begins), as an ISO instant. */
export function windowResetsAt(window: UsageLimit['window'], now: Date): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (window === 'day') return new Date(today + DAY_MS).toISOString();
  if (window === 'week') return new Date(today + (7 - ((now.getUTCDay() + 6) % 7)) * DAY_MS).toISOString();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}
