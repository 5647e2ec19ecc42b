// Failed sign-ins, throttled so that an attacker cannot lock out a person who signs in from elsewhere. Per account
// and source address (the pair): past SIGN_IN_MAX_FAILURES_PER_ACCOUNT failures in the window, each further failure
// doubles the wait, from a sixteenth of the window up to the window; the same account from another address is not
// slowed. Per source address, against spraying many accounts: past SIGN_IN_MAX_FAILURES_PER_ADDRESS distinct accounts
// failed in the window, the address waits — one attacker hammering one account behind a NAT counts once, so the
// people sharing that address are not locked out by it. A refused attempt is 429 with Retry-After, the right password
// included. The counts live in the rate limit store: shared by the api processes with the production engines, so the
// limits hold however many answer; in this process when embedded (a restart starts afresh; the failures themselves
// are events).
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PLATFORM_CONFIG, PlatformError, type PlatformConfig } from '#kernel';
import { RATE_LIMIT_STORE, type RateLimitStore } from '#rate-limit-store';

/** The first wait past the limit, as a share of the window (then doubled with each further failure). */
const FIRST_BACKOFF_SHARE = 1 / 16;

@Injectable()
export class SignInLimiter {
  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {}

  /** 429 while the account from this address, or the address itself, has to wait. */
  async check(email: string, address: string | null, now = Date.now()): Promise<void> {
    const since = now - this.config.people.signInFailureWindowMs;
    const [pairFailures, accountsFailed] = await Promise.all([
      this.store.hits(pairOf(email, address), since),
      address ? this.store.hits(addressOf(address), since) : [],
    ]);
    const wait = Math.max(this.backoff(pairFailures, now), this.sprayWait(accountsFailed, now));
    if (wait <= 0) return;
    const error = new PlatformError(
      'rate_limited',
      'sign_in_rate_limited',
      'too many failed sign-ins; try again later',
    );
    error.headers = { 'Retry-After': String(Math.ceil(wait / 1000)) };
    throw error;
  }

  /** A failure of the pair; from an address, the account counts once among the accounts failed from it. */
  async fail(email: string, address: string | null, now = Date.now()): Promise<void> {
    const window = this.config.people.signInFailureWindowMs;
    await Promise.all([
      this.store.hit(pairOf(email, address), randomUUID(), now, window),
      address ? this.store.hit(addressOf(address), email, now, window) : undefined,
    ]);
  }

  async succeed(email: string, address: string | null): Promise<void> {
    await this.store.forget(pairOf(email, address));
  }

  /** Milliseconds the pair waits: none below the limit, then a doubling share of the window after the last failure. */
  private backoff(recent: readonly number[], now: number): number {
    const { signInMaxFailuresPerAccount: max, signInFailureWindowMs: window } = this.config.people;
    if (recent.length < max) return 0;
    const step = Math.min(window, window * FIRST_BACKOFF_SHARE * 2 ** (recent.length - max));
    return recent.at(-1)! + step - now;
  }

  /** Milliseconds the address waits: until fewer than the limit of distinct accounts failed from it in the window. */
  private sprayWait(accountsFailed: readonly number[], now: number): number {
    const { signInMaxFailuresPerAddress: max, signInFailureWindowMs: window } = this.config.people;
    return accountsFailed.length < max ? 0 : accountsFailed.at(-max)! + window - now;
  }
}

const pairOf = (email: string, address: string | null) => `sign-in:pair:${email}\u0000${address ?? ''}`;
const addressOf = (address: string) => `sign-in:address:${address}`;
