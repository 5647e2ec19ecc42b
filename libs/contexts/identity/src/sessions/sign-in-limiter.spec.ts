import { type PlatformConfig } from '#kernel';
import { InProcessRateLimitStore } from '#rate-limit-store/in-process/in-process-rate-limit-store';
import { SignInLimiter } from './sign-in-limiter.js';

const config = {
  people: { signInMaxFailuresPerAccount: 3, signInMaxFailuresPerAddress: 5, signInFailureWindowMs: 64_000 },
} as unknown as PlatformConfig;

const limited = async (limiter: SignInLimiter, email: string, address: string | null, now: number) => {
  try {
    await limiter.check(email, address, now);
    return null;
  } catch (error) {
    return error as { code: string; headers: Record<string, string> };
  }
};

describe('sign-in limiter', () => {
  it('slows an account from the address that failed it, doubling the wait; the account from elsewhere is not slowed', async () => {
    const limiter = new SignInLimiter(config, new InProcessRateLimitStore());
    for (let i = 0; i < 3; i++) await limiter.fail('a@x', '10.0.0.1', 1_000);
    // A sixteenth of the window (4 s) after the last failure, then 8 s, 16 s, … up to the window.
    const refused = await limited(limiter, 'a@x', '10.0.0.1', 1_000);
    expect(refused?.code).toBe('sign_in_rate_limited');
    expect(refused?.headers['Retry-After']).toBe('4');
    expect(await limited(limiter, 'a@x', '10.0.0.9', 1_000)).toBeNull();
    expect(await limited(limiter, 'a@x', '10.0.0.1', 5_000)).toBeNull();
    await limiter.fail('a@x', '10.0.0.1', 5_000);
    expect((await limited(limiter, 'a@x', '10.0.0.1', 5_000))?.headers['Retry-After']).toBe('8');
    for (let i = 0; i < 10; i++) await limiter.fail('a@x', '10.0.0.1', 6_000);
    expect((await limited(limiter, 'a@x', '10.0.0.1', 6_000))?.headers['Retry-After']).toBe('64');
    expect(await limited(limiter, 'a@x', '10.0.0.9', 6_000)).toBeNull();
  });

  it('refuses an address that failed too many distinct accounts (spraying), whatever the account; one account hammered counts once', async () => {
    const limiter = new SignInLimiter(config, new InProcessRateLimitStore());
    for (let i = 0; i < 20; i++) await limiter.fail('target@x', '10.0.0.3', 1_000);
    expect(await limited(limiter, 'neighbour@x', '10.0.0.3', 1_500)).toBeNull();
    for (let i = 0; i < 5; i++) await limiter.fail(`user${i}@x`, '10.0.0.2', 1_000);
    expect((await limited(limiter, 'new@x', '10.0.0.2', 1_500))?.code).toBe('sign_in_rate_limited');
    expect(await limited(limiter, 'new@x', '10.0.0.3', 1_500)).toBeNull();
    expect(await limited(limiter, 'new@x', '10.0.0.2', 65_001)).toBeNull();
  });

  it('a success clears the account from that address', async () => {
    const limiter = new SignInLimiter(config, new InProcessRateLimitStore());
    for (let i = 0; i < 3; i++) await limiter.fail('a@x', null, 1_000);
    await limiter.succeed('a@x', null);
    expect(await limited(limiter, 'a@x', null, 1_001)).toBeNull();
  });
});

describe('sign-in limiter across api processes', () => {
  it('one store shared by two limiters (two api processes): failures through one slow the pair on the other', async () => {
    const store = new InProcessRateLimitStore();
    const [first, second] = [new SignInLimiter(config, store), new SignInLimiter(config, store)];
    for (let i = 0; i < 3; i++) await first.fail('a@x', '10.0.0.1', 1_000);
    expect((await limited(second, 'a@x', '10.0.0.1', 1_000))?.code).toBe('sign_in_rate_limited');
    for (let i = 0; i < 5; i++) await (i % 2 ? first : second).fail(`user${i}@x`, '10.0.0.2', 1_000);
    expect((await limited(first, 'new@x', '10.0.0.2', 1_500))?.code).toBe('sign_in_rate_limited');
    await second.succeed('a@x', '10.0.0.1');
    expect(await limited(first, 'a@x', '10.0.0.1', 1_001)).toBeNull();
  });
});
