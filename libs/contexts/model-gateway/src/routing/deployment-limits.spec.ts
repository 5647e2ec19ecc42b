import type { ModelConfig } from '#model-providers';
import { DeploymentLimits, hasLimits } from './deployment-limits.js';

const target = (limits: { rpm?: number; tpm?: number }) =>
  ({ key: 'm', ...limits }) as unknown as ModelConfig;

describe('DeploymentLimits', () => {
  let now = 1_000_000;
  const limits = () => new DeploymentLimits(() => now);

  it('closes a deployment for the rest of the minute once it took its requests', () => {
    const window = limits();
    const two = target({ rpm: 2 });
    expect(window.open('a', two)).toBe(true);
    window.request('a', two);
    now += 10_000;
    window.request('a', two);
    expect(window.open('a', two)).toBe(false);
    // Another deployment keeps its own count.
    expect(window.open('b', two)).toBe(true);
    // The first request leaves the window 60 s after it came; the deployment reopens then.
    expect(window.reopens(['a'])).toBe(50_000);
    now += 50_000;
    expect(window.open('a', two)).toBe(true);
  });

  it('counts tokens against tpm', () => {
    const window = limits();
    const small = target({ tpm: 1000 });
    window.request('a', small);
    window.spent('a', small, 600);
    expect(window.open('a', small)).toBe(true);
    window.spent('a', small, 400);
    expect(window.open('a', small)).toBe(false);
  });

  it('counts nothing for a deployment without limits', () => {
    const window = limits();
    const free = target({});
    expect(hasLimits(free)).toBe(false);
    expect(hasLimits(target({ tpm: 5 }))).toBe(true);
    for (let index = 0; index < 100; index++) window.request('a', free);
    expect(window.open('a', free)).toBe(true);
    // With nothing counted, a retry waits at least a second.
    expect(window.reopens(['a'])).toBe(1000);
  });
});
