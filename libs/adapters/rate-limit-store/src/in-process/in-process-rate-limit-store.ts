// The embedded adapter of the rate limit store: the counts live in this process (one api process, or a test).
import { MAX_HITS_PER_KEY, type RateLimitStore } from '../rate-limit-store.port.js';

/** In this process: a map of keys, each its members' last hit times; the least recently hit keys go past a bound. */
export class InProcessRateLimitStore implements RateLimitStore {
  private readonly keys = new Map<string, Map<string, number>>();

  constructor(private readonly maxKeys = 100_000) {}

  hit(key: string, member: string, at: number, windowMs: number): Promise<number[]> {
    const members = this.keys.get(key) ?? new Map<string, number>();
    this.keys.delete(key);
    this.keys.set(key, members);
    if (this.keys.size > this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
    members.delete(member);
    members.set(member, at);
    if (members.size > MAX_HITS_PER_KEY) members.delete(members.keys().next().value!);
    return this.hits(key, at - windowMs);
  }

  hits(key: string, since: number): Promise<number[]> {
    const members = this.keys.get(key);
    const times = [...(members?.values() ?? [])].filter((at) => at > since).toSorted((a, b) => a - b);
    return Promise.resolve(times);
  }

  forget(key: string, member?: string): Promise<void> {
    if (member === undefined) this.keys.delete(key);
    else this.keys.get(key)?.delete(member);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
