// Request schemas of the compatible API, in the common chat-completions format. Fields outside the spec's lists are
// ignored (SDKs send extras such as `user` or `store`); the spec's unsupported fields are refused by name.
import { z } from 'zod';
import { ValidationError } from '#kernel';
import { INPUT_LIMITS, withinChars } from '#model-providers';

const ContentPart = z.looseObject({ type: z.string().min(1) });

const Message = z
  .looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
    name: z.string().optional(),
    tool_call_id: z.string().optional(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          type: z.literal('function'),
          function: z.looseObject({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  })
  .superRefine((message, context) => {
    // Only an assistant message may go without content (when it carries tool calls).
    const empty = message.content === undefined || message.content === null;
    if (empty && (message.role !== 'assistant' || !message.tool_calls?.length))
      context.addIssue({
        code: 'custom',
        path: ['content'],
        message: `a ${message.role} message needs content`,
      });
    if (message.role === 'tool' && !message.tool_call_id)
      context.addIssue({
        code: 'custom',
        path: ['tool_call_id'],
        message: 'a tool message needs tool_call_id',
      });
  });

const Tool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const ToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const ChatCompletionBody = z.object({
  model: z.string().min(1).max(256),
  messages: z
    .array(Message)
    .min(1, 'at least one message is required')
    .superRefine(withinChars(INPUT_LIMITS.chatChars, 'the messages')),
  temperature: optional(z.number().min(0).max(2)),
  top_p: optional(z.number().min(0).max(1)),
  max_completion_tokens: optional(z.number().int().min(1)),
  max_tokens: optional(z.number().int().min(1)),
  stop: optional(z.union([z.string(), z.array(z.string()).max(4)])),
  seed: optional(z.number().int()),
  frequency_penalty: optional(z.number().min(-2).max(2)),
  presence_penalty: optional(z.number().min(-2).max(2)),
  tools: optional(z.array(Tool).max(128)),
  tool_choice: optional(ToolChoice),
  parallel_tool_calls: optional(z.boolean()),
  stream: optional(z.boolean()),
  stream_options: optional(z.object({ include_usage: optional(z.boolean()) })),
  // Accepted at their neutral values, which common SDKs send.
  n: optional(z.literal(1)),
  logprobs: optional(z.literal(false)),
});
export type ChatCompletionBody = z.output<typeof ChatCompletionBody>;

/** The spec's unsupported fields, refused with a 400 naming the field (`n: 1` and `logprobs: false` pass). */
export function refuseUnsupportedChatFields(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const fields = body as Record<string, unknown>;
  const refuse = (param: string, why: string) => {
    throw new ValidationError(
      'unsupported_parameter',
      `${param} is not supported by this gateway: ${why}`,
      param,
    );
  };
  if (fields.n !== undefined && fields.n !== null && fields.n !== 1) refuse('n', 'only one choice (n: 1)');
  if (fields.logprobs !== undefined && fields.logprobs !== null && fields.logprobs !== false)
    refuse('logprobs', 'log probabilities are not returned');
  if (fields.top_logprobs !== undefined && fields.top_logprobs !== null)
    refuse('top_logprobs', 'log probabilities are not returned');
  if (fields.response_format !== undefined && fields.response_format !== null)
    refuse('response_format', 'use the core generateObject endpoint for structured output');
  if (fields.logit_bias !== undefined && fields.logit_bias !== null)
    refuse('logit_bias', 'token biasing is not available');
}

export const MAX_EMBEDDING_INPUTS = 2048;
/** Tokens in one input given as token ids (OpenAI's own limit for one input is 8,192). */
export const MAX_INPUT_TOKEN_IDS = 8192;

const TokenIds = z
  .array(z.number().int().min(0).max(1_000_000))
  .min(1, 'a token array needs at least one token')
  .max(MAX_INPUT_TOKEN_IDS);

export const EmbeddingsBody = z.object({
  model: z.string().min(1).max(256),
  input: z
    .union([
      z.string().superRefine(withinChars(INPUT_LIMITS.embeddingInputChars, 'the input')),
      z
        .array(z.string().superRefine(withinChars(INPUT_LIMITS.embeddingInputChars, 'an input')))
        .min(1, 'at least one input is required'),
      // Token ids: one input (`[15339, 1917]`) or several (`[[15339, 1917]]`).
      TokenIds,
      z.array(TokenIds).min(1, 'at least one input is required'),
    ])
    .superRefine(withinChars(INPUT_LIMITS.embeddingTotalChars, 'the inputs')),
  encoding_format: optional(z.enum(['float', 'base64'])),
  dimensions: optional(z.number().int().min(1)),
  user: optional(z.string()),
});
export type EmbeddingsBody = z.output<typeof EmbeddingsBody>;

export const RerankBody = z.object({
  model: z.string().min(1).max(256),
  query: z.string().min(1).superRefine(withinChars(INPUT_LIMITS.rerankQueryChars, 'the query')),
  input: z
    .union([z.string(), z.array(z.string())])
    .superRefine(withinChars(INPUT_LIMITS.rerankTotalChars, 'the documents')),
  top_k: optional(z.number().int().min(1)),
});
export type RerankBody = z.output<typeof RerankBody>;
