// Cost of a call from its token counts (spec: "LLM invocation"): the input price applies only to the fresh part of
// the input; cached reads cost the model's cachedInput price (10% of the input price when it has none), and input
// written to the upstream's prompt cache its cacheWrite price (125% of the input price when it has none, Anthropic's
// five-minute cache).
import type { ModelPricing, TokenUsage } from '#model-providers';

const PER_MILLION = 1_000_000;

export function callCost(pricing: ModelPricing, usage: TokenUsage): number {
  const cached = Math.min(Math.max(usage.cachedInputTokens, 0), usage.inputTokens);
  const written = Math.min(Math.max(usage.cacheWriteTokens ?? 0, 0), usage.inputTokens - cached);
  const fresh = usage.inputTokens - cached - written;
  const cachedPrice = pricing.cachedInput ?? pricing.input * 0.1;
  const writePrice = pricing.cacheWrite ?? pricing.input * 1.25;
  const cost =
    fresh * pricing.input + cached * cachedPrice + written * writePrice + usage.outputTokens * pricing.output;
  // Rounded to a billionth of a dollar so sums stay exact enough and events stay readable.
  return Math.round((cost / PER_MILLION) * 1e9) / 1e9;
}
