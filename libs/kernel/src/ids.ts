// Identifiers: time-ordered UUIDv7 with a short type prefix, so ids sort by creation and say what they name.
import { createHash, randomFillSync } from 'node:crypto';
import { v7 as uuidv7, v5 as uuidv5 } from 'uuid';

/**
 * Random bytes for ids, drawn from a pool refilled 256 ids at a time: one getRandomValues call per id cost about
 * 25 µs on the gateway's hot path (two ids per model call), the pool a fraction of that.
 */
const POOL_IDS = 256;
const pool = new Uint8Array(16 * POOL_IDS);
let poolNext = POOL_IDS;

const randomBytes16 = (): Uint8Array => {
  if (poolNext === POOL_IDS) {
    randomFillSync(pool);
    poolNext = 0;
  }
  const start = 16 * poolNext++;
  return pool.subarray(start, start + 16);
};

export const newEventId = (): string => uuidv7({ random: randomBytes16() });

export const newId = (prefix: string): string => `${prefix}_${newEventId().replace(/-/g, '')}`;

const NAMESPACE = '2c1f4a8e-7d57-4d43-9a5e-0b6d3c2f9e11';

/** A deterministic event id: the same cause and name always give the same id, which makes re-sent appends no-ops. */
export const derivedEventId = (...parts: string[]): string => uuidv5(parts.join('\u0000'), NAMESPACE);

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
