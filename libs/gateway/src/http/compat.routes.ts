// OpenAPI entries of the compatible API (`/api/compat/v1`), from the same schemas that validate its requests.
import { z } from 'zod';
import type { RouteDoc } from '#http';
import { ChatCompletionBody, EmbeddingsBody, RerankBody } from './compat.schemas.js';

const Usage = z.object({
  prompt_tokens: z.number().describe('All input tokens, cached reads included'),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  prompt_tokens_details: z.object({ cached_tokens: z.number() }),
});

const ChatCompletion = z.object({
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

const Embeddings = z.object({
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

const Rerank = z.object({
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

const Models = z.object({
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

const ERRORS = {
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

export const COMPAT_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/compat/v1/chat/completions',
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create a chat completion (OpenAI format)',
    description:
      'Straight to the model: no Agent prompt, Knowledge, tools or memory. `max_completion_tokens` wins over ' +
      '`max_tokens`. Unsupported: `n` other than 1, `logprobs: true`, `response_format`, `logit_bias` (400 naming ' +
      'the field). With `stream: true` the answer is `text/event-stream`: `data: {chat.completion.chunk}` events, a ' +
      'final usage chunk (`choices: []`) when `stream_options.include_usage` is true, then `data: [DONE]`. An error ' +
      'after the first chunk arrives as a `data: {"error": …}` event. A client that reads nothing for ' +
      '`STREAM_STALL_TIMEOUT_MS` is disconnected. Messages and tools: at most 1,000,000 characters (400 ' +
      '`input_too_large`). A usage-limit 429 carries `Retry-After` and `x-should-retry: false`.',
    body: ChatCompletionBody,
    response: {
      status: 200,
      schema: ChatCompletion,
      description: 'A chat.completion (or an SSE stream of chunks)',
    },
    errors: [ERRORS[400], ERRORS[404], ERRORS[429], ERRORS[502], ERRORS[504]],
  },
  {
    method: 'post',
    path: '/api/compat/v1/embeddings',
    tag: 'Compatible API',
    bearer: true,
    summary: 'Create embeddings (OpenAI format)',
    description:
      'At most 2048 inputs (400 `too_many_inputs` beyond). `dimensions` truncates each vector (no re-normalisation; ' +
      '400 `invalid_dimensions` above the model width). `input` may be text or token ids (`[15339, 1917]`, ' +
      '`[[15339, 1917]]`; passed upstream as they are, read with cl100k_base for offline-embed). An input is at most ' +
      '200,000 characters, all of them 4,000,000 (400 `input_too_large`).',
    body: EmbeddingsBody,
    response: { status: 200, schema: Embeddings, description: 'One embedding per input, in input order' },
    errors: [ERRORS[400], ERRORS[404], ERRORS[502], ERRORS[504]],
  },
  {
    method: 'get',
    path: '/api/compat/v1/models',
    tag: 'Compatible API',
    bearer: true,
    summary: 'List the chat and embedding models (the reranker is not listed)',
    response: {
      status: 200,
      schema: Models,
      description: 'OpenAI list shape, with tier, region and pricing',
    },
  },
  {
    method: 'get',
    path: '/api/compat/v1/models/{model}',
    tag: 'Compatible API',
    bearer: true,
    summary: 'One listed model (models.retrieve)',
    response: { status: 200, schema: Models.shape.data.element, description: 'The model object' },
    errors: [ERRORS[404]],
  },
  {
    method: 'post',
    path: '/api/compat/v1/rerank',
    tag: 'Compatible API',
    bearer: true,
    summary: 'Score documents against a query',
    description:
      '`model` must be the configured reranker. Errors: 400 `invalid_body` (model, query or input missing or ' +
      'malformed), 400 `invalid_input` (no documents), 404 `model_not_found`, 429 `usage_limit_exceeded`.',
    body: RerankBody,
    response: { status: 200, schema: Rerank, description: 'Documents by relevance, highest first' },
    errors: [ERRORS[400], ERRORS[404], ERRORS[429], ERRORS[502], ERRORS[504]],
  },
];
