import { callCost } from './cost.js';

describe('callCost', () => {
  const pricing = { input: 2, output: 8 };

  it('charges input and output per million tokens', () => {
    expect(callCost(pricing, { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 500_000 })).toBe(
      6,
    );
  });

  it('charges cached reads at 10% of the input price when the model has no cachedInput price', () => {
    // 600k fresh at $2 = 1.2; 400k cached at $0.2 = 0.08; no output.
    expect(callCost(pricing, { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 0 })).toBe(
      1.28,
    );
  });

  it('charges cached reads at the explicit cachedInput price when there is one', () => {
    const withCached = { ...pricing, cachedInput: 0.5 };
    // 600k fresh at $2 = 1.2; 400k cached at $0.5 = 0.2.
    expect(
      callCost(withCached, { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 0 }),
    ).toBe(1.4);
  });

  it('never counts more cached tokens than input tokens, and free models cost nothing', () => {
    expect(callCost(pricing, { inputTokens: 100, cachedInputTokens: 500, outputTokens: 0 })).toBeCloseTo(
      0.00002,
      9,
    );
    expect(
      callCost({ input: 0, output: 0 }, { inputTokens: 10, cachedInputTokens: 0, outputTokens: 10 }),
    ).toBe(0);
  });

  it("charges prompt-cache writes at 125% of the input price, or the model's cacheWrite price", () => {
    const usage = {
      inputTokens: 1_000_000,
      cachedInputTokens: 200_000,
      cacheWriteTokens: 300_000,
      outputTokens: 0,
    };
    // 500k fresh at $2 = 1.0; 200k cached at $0.2 = 0.04; 300k written at $2.5 = 0.75.
    expect(callCost(pricing, usage)).toBe(1.79);
    // The same written at an explicit $3: 0.9.
    expect(callCost({ ...pricing, cacheWrite: 3 }, usage)).toBe(1.94);
  });
});
