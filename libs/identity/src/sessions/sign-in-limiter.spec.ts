import type { PlatformConfig } from '#kernel';
import { SignInLimiter } from './sign-in-limiter.js';

const config = {
  people: { signInMaxFailuresPerAccount: 3, signInMaxFailuresPerAddress: 5, signInFailureWindowMs: 60_000 },
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
  it('refuses an account past its failures in the window, with Retry-After, and lets it try after', () => {
    const limiter = new SignInLimiter(config);
    for (let i = 0; i < 3; i++) limiter.fail('a@x', '10.0.0.1', 1_000 + i);
    const refused = limited(limiter, 'a@x', '10.0.0.9', 2_000);
    expect(refused?.code).toBe('sign_in_rate_limited');
    expect(refused?.headers['Retry-After']).toBe('59');
    expect(limited(limiter, 'b@x', '10.0.0.9', 2_000)).toBeNull();
    expect(limited(limiter, 'a@x', '10.0.0.9', 61_001)).toBeNull();
  });

  it('refuses a source address past its failures, whatever the account', () => {
    const limiter = new SignInLimiter(config);
    for (let i = 0; i < 5; i++) limiter.fail(`user${i}@x`, '10.0.0.2', 1_000);
    expect(limited(limiter, 'new@x', '10.0.0.2', 1_500)?.code).toBe('sign_in_rate_limited');
    expect(limited(limiter, 'new@x', '10.0.0.3', 1_500)).toBeNull();
  });

  it('a success clears the account, not the address', () => {
    const limiter = new SignInLimiter(config);
    for (let i = 0; i < 3; i++) limiter.fail('a@x', null, 1_000);
    limiter.succeed('a@x');
    expect(limited(limiter, 'a@x', null, 1_001)).toBeNull();
  });
});
