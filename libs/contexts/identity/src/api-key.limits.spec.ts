import { assertWithinOwnLimit } from './api-key.limits.js';

const limit = (tokens: number | null, costUsd: number | null, window: 'day' | 'week' | 'month') => ({
  tokens,
  costUsd,
  window,
});

describe('a minted key stays within the minting key’s usage limit', () => {
  const refused = (minted: ReturnType<typeof limit>, own: ReturnType<typeof limit>) =>
    expect(() => assertWithinOwnLimit(minted, own)).toThrow(
      expect.objectContaining({ code: 'usage_limit_above_own', param: 'usageLimit' }),
    );

  it('allows as much or less, over the same or a longer window; anything under a key without a limit', () => {
    for (const [minted, own] of [
      [limit(100_000, null, 'day'), limit(100_000, null, 'day')],
      [limit(5_000, null, 'month'), limit(100_000, null, 'day')],
      [limit(100, 1, 'week'), limit(100_000, 2, 'week')],
      [limit(10 ** 12, null, 'day'), null],
    ] as const)
      expect(() => assertWithinOwnLimit(minted, own)).not.toThrow();
  });

  it('refuses more of a measure, a measure the minting key limits left open, and a shorter window', () => {
    refused(limit(10 ** 12, null, 'day'), limit(100_000, null, 'day'));
    refused(limit(null, 5, 'day'), limit(100_000, null, 'day'));
    refused(limit(1_000, 50, 'day'), limit(100_000, 10, 'day'));
    refused(limit(100_000, null, 'day'), limit(100_000, null, 'month'));
  });
});
