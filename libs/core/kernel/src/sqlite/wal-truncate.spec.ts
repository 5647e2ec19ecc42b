import type { DatabaseSync } from 'node:sqlite';
import { truncateWal } from './wal-truncate.js';

/** A connection whose truncating checkpoint answers busy `busyTimes` times (another checkpoint under way), then done. */
const connection = (busyTimes: number) => {
  let calls = 0;
  const db = {
    prepare: (sql: string) => {
      expect(sql).toBe('PRAGMA wal_checkpoint(TRUNCATE)');
      return { get: () => ({ busy: calls++ < busyTimes ? 1 : 0, log: 0, checkpointed: 0 }) };
    },
  } as unknown as DatabaseSync;
  return { db, calls: () => calls };
};

describe('truncateWal', () => {
  it('tries again while another checkpoint holds the lock, and reports the truncation done', () => {
    const busyThrice = connection(3);
    expect(truncateWal(busyThrice.db)).toBe(true);
    expect(busyThrice.calls()).toBe(4);
    const free = connection(0);
    expect(truncateWal(free.db)).toBe(true);
    expect(free.calls()).toBe(1);
  });

  it('gives up after its wait when the log stays busy', () => {
    const always = connection(Number.POSITIVE_INFINITY);
    expect(truncateWal(always.db, 30)).toBe(false);
    expect(always.calls()).toBeGreaterThan(1);
  });
});
