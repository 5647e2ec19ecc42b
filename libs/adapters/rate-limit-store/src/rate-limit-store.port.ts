// Where the abuse limits (failed sign-ins, embed chat messages) count their hits: a sliding window of hit times per
// key. Embedded, the counts live in this process; with the production engines (MONGODB_URI), in a MongoDB collection
// every api process shares, so a limit holds however many processes answer (openRateLimitStore chooses).

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');

export interface RateLimitStore {
  /**
   * Records a hit of `member` on `key` at `at`, kept for `windowMs` (a member's later hit replaces its earlier one),
   * and answers the key's hit times after `at - windowMs`, oldest first, this one included.
   */
  hit(key: string, member: string, at: number, windowMs: number): Promise<number[]>;
  /** The key's hit times after `since`, oldest first. */
  hits(key: string, since: number): Promise<number[]>;
  /** Takes back a member's hit (an attempt that was refused after all), or every hit of the key. */
  forget(key: string, member?: string): Promise<void>;
  close(): Promise<void>;
}

/** Most hits a key keeps (older ones go first): a window never needs more than a limit's worth. */
export const MAX_HITS_PER_KEY = 1000;
