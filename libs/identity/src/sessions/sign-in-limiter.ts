// Failed sign-ins per account (email) and per source address in a sliding window (SIGN_IN_*): past either limit the
// next attempt is 429 with Retry-After, the right password included. Counts live in this process (a restart or another
// api process starts afresh; the failures themselves are events).
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';

const MAX_TRACKED = 100_000;

@Injectable()
export class SignInLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  /** 429 when the account or the address has used up its failures. */
  check(email: string, address: string | null, now = Date.now()): void {
    const { signInMaxFailuresPerAccount, signInMaxFailuresPerAddress } = this.config.people;
    const waits = [
      this.waitFor(`account:${email}`, signInMaxFailuresPerAccount, now),
      address ? this.waitFor(`address:${address}`, signInMaxFailuresPerAddress, now) : 0,
    ];
    const wait = Math.max(...waits);
    if (wait <= 0) return;
    const error = new PlatformError(
      'rate_limited',
      'sign_in_rate_limited',
      'too many failed sign-ins; try again later',
    );
    error.headers = { 'Retry-After': String(Math.ceil(wait / 1000)) };
    throw error;
  }

  fail(email: string, address: string | null, now = Date.now()): void {
    this.push(`account:${email}`, now);
    if (address) this.push(`address:${address}`, now);
  }

  succeed(email: string): void {
    this.failures.delete(`account:${email}`);
  }

  /** Milliseconds until the key may try again (0: now). */
  private waitFor(key: string, max: number, now: number): number {
    const recent = this.recent(key, now);
    return recent.length < max
      ? 0
      : recent[recent.length - max]! + this.config.people.signInFailureWindowMs - now;
  }

  private recent(key: string, now: number): number[] {
    const since = now - this.config.people.signInFailureWindowMs;
    const kept = (this.failures.get(key) ?? []).filter((at) => at > since);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  private push(key: string, now: number): void {
    const list = this.recent(key, now);
    list.push(now);
    if (list.length > 1000) list.shift();
    this.failures.set(key, list);
    if (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
  }
}
