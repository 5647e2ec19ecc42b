// The size limits of every text a model call takes, on both surfaces (documented in the OpenAPI and the README).
// Generous next to any model's context, and small enough that counting and sending them stays cheap: over a limit
// the request is a 400 `input_too_large` naming the field, before anything is counted or sent upstream.
import type { z } from 'zod';

export const INPUT_LIMITS = {
  /** All the messages of one chat request (and the tools), as JSON characters. */
  chatChars: 1_000_000,
  /** One embeddings input, and all of them together. */
  embeddingInputChars: 200_000,
  embeddingTotalChars: 4_000_000,
  /** A rerank query, and the query and documents together. */
  rerankQueryChars: 20_000,
  rerankTotalChars: 2_000_000,
} as const;

/** A zod check: the JSON of the value is at most `max` characters, else `input_too_large` on this field. */
export const withinChars =
  (max: number, what: string) =>
  (value: unknown, context: z.RefinementCtx): void => {
    const size = typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0);
    if (size > max)
      context.addIssue({
        code: 'custom',
        params: { code: 'input_too_large' },
        message: `${what} is ${size} characters, over the limit of ${max}`,
      });
  };
