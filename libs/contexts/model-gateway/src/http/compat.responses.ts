// Response schemas and error statuses of the compatible API (`/api/compat/v1`) for its routes' OpenAPI documentation.
import { z } from 'zod';

export const Usage = z.object({
  prompt_tokens: z.number().describe('All input tokens, cached reads included'),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  prompt_tokens_details: z.object({ cached_tokens: z.number() }),
});

export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string().describe('The model key the client sent'),
  system_fingerprint: z.null(),
  choices: z.array(
    z.object({
      index: z.literal(0),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.string().nullable(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .optional(),
      }),
      finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']),
      logprobs: z.null(),
    }),
  ),
  usage: Usage,
});

export const Embeddings = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number(),
      embedding: z
        .union([z.array(z.number()), z.string()])
        .describe('Floats, or with encoding_format base64 the little-endian float32 bytes in base64'),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number(), total_tokens: z.number() }),
});

export const Rerank = z.object({
  object: z.literal('list'),
  model: z.string(),
  results: z
    .array(
      z.object({
        index: z.number().describe("The document's position in the request's input"),
        relevance_score: z.number(),
      }),
    )
    .describe('Highest relevance first; top_k entries when given'),
  usage: z.object({ prompt_tokens: z.number(), total_tokens: z.number() }),
});

export const Models = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      id: z.string(),
      object: z.literal('model'),
      created: z.number(),
      owned_by: z.string().describe('The provider'),
      kind: z.enum(['chat', 'embedding']),
      display_name: z.string(),
      security_tier: z.enum(['secure', 'eu-hosted', 'us-cloud']),
      region: z.string(),
      tags: z.array(z.string()),
      pricing: z.object({ input: z.number(), output: z.number(), cachedInput: z.number().optional() }),
    }),
  ),
});

export const ERRORS = {
  400: {
    status: 400,
    description: 'Invalid body; `param` names the field. Unsupported fields answer `unsupported_parameter`',
  },
  404: { status: 404, description: '`model_not_found`: the model is not configured (or is of another kind)' },
  429: {
    status: 429,
    description: 'type `rate_limit_error`, code `usage_limit_exceeded`: the key is over its usage limit',
  },
  502: { status: 502, description: '`upstream_error`: the model upstream failed or is not reachable' },
  504: {
    status: 504,
    description: "`upstream_timeout`: the model upstream did not answer within the model's timeout",
  },
} as const;
