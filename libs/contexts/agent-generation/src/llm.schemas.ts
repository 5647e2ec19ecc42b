// Wire shapes of the core LLM endpoints: they validate requests and generate the OpenAPI document.
import { z } from 'zod';
import { UsageRecordDto } from '#usage';
import {
  INPUT_LIMITS,
  withinChars,
  MODEL_KINDS,
  SECURITY_TIERS,
  ASPECT_RATIOS,
  RESOLUTIONS,
} from '#model-providers';

// Content parts of the chat-completions format, checked to the fields a provider reads (a text part without text
// would reach the model as garbage, or break it).
const TextPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const UserPart = z.discriminatedUnion('type', [
  TextPart,
  z.strictObject({
    type: z.literal('image_url'),
    image_url: z.strictObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
  }),
  z.strictObject({
    type: z.literal('input_audio'),
    input_audio: z.strictObject({ data: z.string().min(1), format: z.enum(['wav', 'mp3']) }),
  }),
  z.strictObject({
    type: z.literal('file'),
    file: z.strictObject({
      file_data: z.string().optional(),
      file_id: z.string().optional(),
      filename: z.string().optional(),
    }),
  }),
]);
const AssistantPart = z.discriminatedUnion('type', [
  TextPart,
  z.strictObject({ type: z.literal('refusal'), refusal: z.string() }),
]);
const contentOf = <P extends z.ZodType>(part: P) => z.union([z.string(), z.array(part).min(1)]);

const Message = z.discriminatedUnion('role', [
  z.strictObject({
    role: z.literal('user'),
    content: contentOf(UserPart),
    name: z.string().max(64).optional(),
  }),
  z
    .strictObject({
      role: z.literal('assistant'),
      content: contentOf(AssistantPart).nullable().optional(),
      name: z.string().max(64).optional(),
      tool_calls: z
        .array(
          z.strictObject({
            id: z.string().min(1).max(256),
            type: z.literal('function'),
            function: z.strictObject({ name: z.string().min(1).max(64), arguments: z.string() }),
          }),
        )
        .min(1)
        .optional(),
    })
    .refine((message) => message.content != null || message.tool_calls !== undefined, {
      message: 'an assistant message needs content or tool_calls',
      path: ['content'],
    }),
  z.strictObject({
    role: z.literal('tool'),
    content: contentOf(TextPart),
    tool_call_id: z.string().min(1).max(256),
  }),
]);

const generateFields = {
  messages: z
    .array(Message)
    .min(1, 'at least one message is required')
    .max(1000)
    .superRefine(withinChars(INPUT_LIMITS.chatChars, 'the messages'))
    .describe(
      "Roles user, assistant and tool. system and developer are refused (400 system_role_not_allowed): the Agent's system prompt is sent first",
    ),
  model: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("A configured chat model key (GET /llm/{agentId}/models); default: the Agent's model"),
  maxTokens: z.number().int().min(1).max(1_000_000).optional().describe('Sent as max_completion_tokens'),
  conversationId: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("Continue one of the caller's conversations with this Agent; an id that is not theirs is 404"),
};

export const GenerateTextBody = z.strictObject(generateFields);
export type GenerateTextBody = z.output<typeof GenerateTextBody>;

export const GenerateObjectBody = z.strictObject({
  ...generateFields,
  schema: z
    .record(z.string(), z.unknown())
    .describe('The JSON Schema the object must match (draft-07, or 2019-09/2020-12 when $schema says so)'),
  schemaName: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64')
    .optional()
    .describe('Name of the schema as the model sees it (default "response")'),
});
export type GenerateObjectBody = z.output<typeof GenerateObjectBody>;

export const GenerateImageBody = z.strictObject({
  prompt: z.string().trim().min(1).max(32_000),
  aspectRatio: z.enum(ASPECT_RATIOS),
  resolution: z.enum(RESOLUTIONS).describe('Long side 1024, 2048 or 4096 pixels'),
  imageConfig: z.record(z.string(), z.unknown()).optional().describe('Provider-specific options, passed on'),
  mask: z
    .string()
    .optional()
    .describe(
      'Inpainting mask as a base64 data URL of a PNG, JPEG or WebP image (400 invalid_mask otherwise)',
    ),
  model: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("A configured image model key; default: the instance's default image model"),
});
export type GenerateImageBody = z.output<typeof GenerateImageBody>;

const Usage = z.object({
  inputTokens: z.number().describe('All input tokens, cached reads included'),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
});

const FinishReason = z.enum(['stop', 'length', 'tool_calls', 'content_filter']);

export const TextResultDto = z.object({
  text: z.string(),
  model: z.string(),
  finishReason: FinishReason,
  usage: Usage,
});

export const ObjectResultDto = z.object({
  object: z.unknown().describe('Valid for the request schema'),
  model: z.string(),
  finishReason: FinishReason,
  usage: Usage.describe('Both attempts when a repair was needed'),
  repaired: z.boolean().describe('The first answer was invalid and the one repair attempt fixed it'),
});

export const ImageResultDto = z.object({
  base64: z.string(),
  mimeType: z.string(),
  width: z.number(),
  height: z.number(),
  model: z.string(),
});

export const ModelInfoDto = z.object({
  key: z.string(),
  modelId: z.string(),
  displayName: z.string(),
  provider: z.string(),
  kind: z.enum(MODEL_KINDS),
  region: z.string(),
  securityTier: z.enum(SECURITY_TIERS),
  locationLabel: z.string(),
  tags: z.array(z.string()),
  pricing: z.object({ input: z.number(), output: z.number(), cachedInput: z.number().optional() }),
  includedUsage: z.boolean(),
  contextWindow: z.number().int().describe('Tokens the model reads at once, prompt and answer together'),
});

export const ModelsDto = z.object({
  defaultModel: z.string().describe("The Agent's model when configured here, else the instance default"),
  availableModels: z.array(z.string()),
  models: z.array(ModelInfoDto),
});

const UsageTotalsDto = z.object({
  calls: z.number(),
  failedCalls: z.number(),
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  billableCostUsd: z.number().describe('Cost of calls not covered by the subscription'),
});

export const UsageDto = z.object({
  agentId: z.string(),
  scope: z
    .enum(['agent', 'user'])
    .describe(
      "`agent`: every user's calls (the Agent's managers, who may change its Space, and admins); `user`: the " +
        "caller's own calls (anyone else granted the Agent)",
    ),
  userId: z.string().optional().describe('Whose calls, when `scope` is `user`'),
  from: z.string(),
  to: z.string(),
  totals: UsageTotalsDto,
  days: z.array(UsageTotalsDto.extend({ day: z.string() })).describe('Days with calls, oldest first'),
  records: z
    .array(UsageRecordDto)
    .describe(
      'The days split by isIncludedUsage (covered first within a day), oldest first; parts with calls only',
    ),
});

/** Speech synthesis: one voice, or a multi-speaker text with at most 2 speakers (spec, Limits). */
export const GenerateSpeechBody = z
  .strictObject({
    text: z.string().trim().min(1).max(4_096),
    model: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .describe("A configured speech model key; default: the instance's default speech model"),
    voiceName: z.string().min(1).max(100).optional(),
    speakers: z
      .array(z.strictObject({ speaker: z.string().min(1).max(100), voiceName: z.string().min(1).max(100) }))
      .min(1)
      .max(2, 'at most 2 speakers')
      .optional()
      .describe('Multi-speaker speech: the text names each speaker (at most 2)'),
  })
  .refine((body) => (body.voiceName === undefined) !== (body.speakers === undefined), {
    message: 'send either voiceName or speakers',
    path: ['voiceName'],
  });
export type GenerateSpeechBody = z.output<typeof GenerateSpeechBody>;

export const SpeechResultDto = z.object({
  base64: z.string().describe('The audio, base64'),
  mimeType: z.string().describe('audio/wav from the offline model'),
  model: z.string(),
});

/** Largest audio a transcription takes (decoded), and the body that carries it in base64 with room to spare. */
export const TRANSCRIPTION_AUDIO_BYTES = 10 * 1024 * 1024;
export const TRANSCRIPTION_BODY_BYTES = 15 * 1024 * 1024;

export const TranscribeBody = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(256)
    .describe('A configured transcription model key (offline-transcribe offline)'),
  audioBase64: z
    .string()
    .min(1)
    .max(Math.ceil(TRANSCRIPTION_AUDIO_BYTES / 3) * 4 + 4)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64'),
  mimeType: z.string().regex(/^audio\/[a-z0-9.+-]+$/i, 'an audio MIME type'),
  prompt: z.string().max(2_000).optional(),
});
export type TranscribeBody = z.output<typeof TranscribeBody>;

export const TranscriptionResultDto = z.object({ text: z.string(), model: z.string() });
