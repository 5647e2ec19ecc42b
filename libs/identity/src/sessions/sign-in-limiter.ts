// Failed sign-ins, throttled so that an attacker cannot lock out a person who signs in from elsewhere. Per account
// and source address (the pair): past SIGN_IN_MAX_FAILURES_PER_ACCOUNT failures in the window, each further failure
// doubles the wait, from a sixteenth of the window up to the window; the same account from another address is not
// slowed. Per source address, against spraying many accounts: past SIGN_IN_MAX_FAILURES_PER_ADDRESS distinct accounts
// failed in the window, the address waits — one attacker hammering one account behind a NAT counts once, so the
// people sharing that address are not locked out by it. A refused attempt is 429 with Retry-After, the right password
// included. Counts live in this process (a restart or another api process starts afresh; the failures themselves
// are events).
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';

const MAX_TRACKED = 100_000;
/** The first wait past the limit, as a share of the window (then doubled with each further failure). */
const FIRST_BACKOFF_SHARE = 1 / 16;

@Injectable()
export class SignInLimiter {
  /** Failure times per account and address. */
  private readonly failures = new Map<string, number[]>();
  /** Per address: each account that failed from it, with its last failure time. */
  private readonly accountsFailed = new Map<string, Map<string, number>>();

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  /** 429 while the account from this address, or the address itself, has to wait. */
  check(email: string, address: string | null, now = Date.now()): void {
    const wait = Math.max(
      this.backoff(pairOf(email, address), now),
      address ? this.sprayWait(address, now) : 0,
    );
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
    const key = pairOf(email, address);
    const list = this.recent(key, now);
    list.push(now);
    if (list.length > 1000) list.shift();
    this.remember(this.failures, key, list);
    if (!address) return;
    const accounts = this.accountsFailed.get(address) ?? new Map<string, number>();
    accounts.delete(email);
    accounts.set(email, now);
    if (accounts.size > 10_000) accounts.delete(accounts.keys().next().value!);
    this.remember(this.accountsFailed, address, accounts);
  }

  succeed(email: string, address: string | null): void {
    this.failures.delete(pairOf(email, address));
  }

  /** Milliseconds the pair waits: none below the limit, then a doubling share of the window after the last failure. */
  private backoff(key: string, now: number): number {
    const { signInMaxFailuresPerAccount: max, signInFailureWindowMs: window } = this.config.people;
    const recent = this.recent(key, now);
    if (recent.length < max) return 0;
    const step = Math.min(window, window * FIRST_BACKOFF_SHARE * 2 ** (recent.length - max));
    return recent.at(-1)! + step - now;
  }

  /** Milliseconds the address waits: until fewer than the limit of distinct accounts failed from it in the window. */
  private sprayWait(address: string, now: number): number {
    const { signInMaxFailuresPerAddress: max, signInFailureWindowMs: window } = this.config.people;
    const times = [...(this.accountsFailed.get(address)?.values() ?? [])]
      .filter((at) => at > now - window)
      .toSorted((a, b) => b - a);
    return times.length < max ? 0 : times[max - 1]! + window - now;
  }

  private recent(key: string, now: number): number[] {
    const since = now - this.config.people.signInFailureWindowMs;
    const kept = (this.failures.get(key) ?? []).filter((at) => at > since);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  private remember<T>(map: Map<string, T>, key: string, value: T): void {
    map.set(key, value);
    if (map.size > MAX_TRACKED) map.delete(map.keys().next().value!);
  }
}

const pairOf = (email: string, address: string | null) => `${email}\u0000${address ?? ''}`;
