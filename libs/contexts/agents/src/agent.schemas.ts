// The Agent settings as the Agents API takes them: the request schemas of the command slices compose these.
import { z } from 'zod';

/** A CSP frame-ancestors source: `*`, a scheme-qualified origin or host pattern; nothing that could break the header. */
const allowedUrl = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(
    /^(\*|(https?:\/\/)?(\*\.)?[A-Za-z0-9.-]+(:\d{1,5}|:\*)?(\/[^\s;,'"]*)?)$/,
    'must be *, an origin such as https://example.com, or a host pattern such as https://*.example.com',
  );

const allowedUrls = z
  .union([z.array(allowedUrl).max(100), z.string().max(10000)])
  .describe('A list, or a comma-separated string; `*` allows any site. Empty: only this instance may embed.')
  .transform((value, ctx) => {
    const items = Array.isArray(value)
      ? value
      : value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
    const parsed: string[] = [];
    for (const [index, item] of items.entries()) {
      const result = allowedUrl.safeParse(item);
      if (!result.success) {
        ctx.addIssue({
          code: 'custom',
          message: `'${item}' ${result.error.issues[0]!.message}`,
          path: [index],
        });
        return z.NEVER;
      }
      if (!parsed.includes(result.data)) parsed.push(result.data);
    }
    return parsed;
  });

export const settings = {
  name: z.string().trim().min(1).max(200),
  model: z.string().trim().min(1).max(200).describe('Model key; defaults to the instance default chat model'),
  systemPrompt: z.string().max(100_000),
  memoryEnabled: z.boolean().describe('Default true; refused (400) for public Agents'),
  sharedMemoryEnabled: z.boolean(),
  isPublic: z.boolean().describe('Making an Agent public turns its memory off'),
  allowedUrls,
  embedSessionMinutes: z.number().int().min(0).max(43_200),
  embedWindowTitle: z.string().max(200),
  embedLimits: z
    .strictObject({
      visitorMessagesPerMinute: z.number().int().min(1).max(10_000).nullable().optional(),
      agentMessagesPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional(),
      dailyCostUsd: z.number().positive().max(1_000_000).nullable().optional(),
    })
    .transform((limits) => ({
      visitorMessagesPerMinute: limits.visitorMessagesPerMinute ?? null,
      agentMessagesPerMinute: limits.agentMessagesPerMinute ?? null,
      dailyCostUsd: limits.dailyCostUsd ?? null,
    }))
    .describe(
      'Abuse limits of the public embed: messages per visitor and per Agent a minute, cost of all visitors per UTC ' +
        'day (429 beyond each). The object replaces the limits; a field null or absent: the instance default (EMBED_VISITOR_MESSAGES_PER_MINUTE 10, ' +
        'EMBED_AGENT_MESSAGES_PER_MINUTE 120, EMBED_DAILY_COST_USD 5)',
    ),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .nullable()
    .describe('null disables the control: it is not sent to the model'),
  topP: z.number().gt(0).max(1).nullable().describe('null disables the control'),
  topK: z.number().int().min(1).max(1000).nullable().describe('null disables the control'),
  knowledgeEnabled: z.boolean(),
  includeAiSummary: z.boolean(),
  conversationTokenBudget: z
    .number()
    .int()
    .min(256)
    .max(2_000_000)
    .nullable()
    .describe(
      'Tokens of prompt a conversation turn may send (capped at 75% of the model window) before the oldest history ' +
        'is compacted; null: the instance default (CONVERSATION_TOKEN_BUDGET)',
    ),
  codeExecutionEnabled: z
    .boolean()
    .describe('Agents may run code in a sandbox per conversation (the run_code tool)'),
};

export const optionalSettings = Object.fromEntries(
  Object.entries(settings).map(([key, schema]) => [key, schema.optional()]),
) as {
  [K in keyof typeof settings]: z.ZodOptional<(typeof settings)[K]>;
};
