import type { PlatformConfig } from '#kernel';
import { SignInLimiter } from './sign-in-limiter.js';

const config = {
  people: { signInMaxFailuresPerAccount: 3, signInMaxFailuresPerAddress: 5, signInFailureWindowMs: 64_000 },
} as unknown as PlatformConfig;

const limited = (limiter: SignInLimiter, email: string, address: string | null, now: number) => {
  try {
    limiter.check(email, address, now);
    return null;
  } catch (error) {
    return error as { code: string; headers: Record<string, string> };
  }
};

describe('sign-in limiter', () => {
  it('slows an account from the address that failed it, doubling the wait; the account from elsewhere is not slowed', () => {
    const limiter = new SignInLimiter(config);
    for (let i = 0; i < 3; i++) limiter.fail('a@x', '10.0.0.1', 1_000);
    // A sixteenth of the window (4 s) after the last failure, then 8 s, 16 s, … up to the window.
    const refused = limited(limiter, 'a@x', '10.0.0.1', 1_000);
    expect(refused?.code).toBe('sign_in_rate_limited');
    expect(refused?.headers['Retry-After']).toBe('4');
    expect(limited(limiter, 'a@x', '10.0.0.9', 1_000)).toBeNull();
    expect(limited(limiter, 'a@x', '10.0.0.1', 5_000)).toBeNull();
    limiter.fail('a@x', '10.0.0.1', 5_000);
    expect(limited(limiter, 'a@x', '10.0.0.1', 5_000)?.headers['Retry-After']).toBe('8');
    for (let i = 0; i < 10; i++) limiter.fail('a@x', '10.0.0.1', 6_000);
    expect(limited(limiter, 'a@x', '10.0.0.1', 6_000)?.headers['Retry-After']).toBe('64');
    expect(limited(limiter, 'a@x', '10.0.0.9', 6_000)).toBeNull();
  });

  it('refuses an address that failed too many distinct accounts (spraying), whatever the account; one account hammered counts once', () => {
    const limiter = new SignInLimiter(config);
    for (let i = 0; i < 20; i++) limiter.fail('target@x', '10.0.0.3', 1_000);
    expect(limited(limiter, 'neighbour@x', '10.0.0.3', 1_500)).toBeNull();
    for (let i = 0; i < 5; i++) limiter.fail(`user${i}@x`, '10.0.0.2', 1_000);
    expect(limited(limiter, 'new@x', '10.0.0.2', 1_500)?.code).toBe('sign_in_rate_limited');
    expect(limited(limiter, 'new@x', '10.0.0.3', 1_500)).toBeNull();
    expect(limited(limiter, 'new@x', '10.0.0.2', 65_001)).toBeNull();
  });

  it('a success clears the account from that address', () => {
    const limiter = new SignInLimiter(config);
    for (let i = 0; i < 3; i++) limiter.fail('a@x', null, 1_000);
    limiter.succeed('a@x', null);
    expect(limited(limiter, 'a@x', null, 1_001)).toBeNull();
  });
});
