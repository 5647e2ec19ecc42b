// Wire shapes of the conversation routes: they validate requests and generate the OpenAPI document.
// Over 300 lines on purpose: one table of the conversation routes' shapes, which share their parts (messages,
// attachments, citations, usage).
import { z } from 'zod';
import { ListQuery } from '#http';
import { MAX_ATTACHMENT_BYTES } from './runtime/attachments.js';

/** Characters of one user message (its text; attachments are bounded on their own). */
export const MAX_MESSAGE_CHARS = 200_000;
const MAX_ATTACHMENTS = 10;

/**
 * Largest body of a turn (POST /llm/{agentId}/conversation): room for one attachment of MAX_ATTACHMENT_BYTES in
 * base64 (4/3 of it: 13.3 MiB) beside the longest message written with JSON escapes (6 bytes a character) and the
 * request's other fields, rounded up to whole MiB (15 MiB). The other routes keep the default limit (10 MiB).
 */
export const TURN_BODY_LIMIT_BYTES =
  Math.ceil((Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4 + MAX_MESSAGE_CHARS * 6 + 64 * 1024) / (1024 * 1024)) *
  1024 *
  1024;

const Attachment = z.union([
  z.strictObject({
    fromMessageId: z
      .string()
      .min(1)
      .max(128)
      .describe(
        'Every attachment of an earlier question of this conversation, as it was read then (an edited question keeps its files)',
      ),
  }),
  z.strictObject({
    documentId: z
      .string()
      .min(1)
      .max(128)
      .describe('A Knowledge document the Agent can reach (its text is read)'),
  }),
  z.strictObject({
    name: z.string().trim().min(1).max(255).describe('File name (its extension helps recognise the type)'),
    mimeType: z.string().trim().min(1).max(255),
    dataBase64: z
      .string()
      .min(1)
      .max(Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
      .describe(
        `The file, base64 (at most ${MAX_ATTACHMENT_BYTES} bytes decoded); its text is extracted by the Knowledge parsers`,
      ),
  }),
]);

const MessageContent = z.string().min(1).max(MAX_MESSAGE_CHARS);

export const SendMessageBody = z
  .strictObject({
    conversationId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('Continue this conversation of yours; without it a new conversation is created (201)'),
    message: z
      .union([
        MessageContent,
        z.strictObject({
          content: MessageContent,
          attachments: z.array(Attachment).max(MAX_ATTACHMENTS).optional(),
        }),
      ])
      .optional()
      .describe(
        'The user message: text, or `{ content, attachments }`. Optional with `promptId` (the prompt is then the message)',
      ),
    parentMessageId: z
      .string()
      .min(1)
      .max(128)
      .nullable()
      .optional()
      .describe(
        'With conversationId: start a branch after this earlier message of the conversation (null: before its first ' +
          'message) instead of after its newest one: an edited question, or the same question asked again for a new ' +
          'answer. The earlier branch is kept (the messages list it in `siblings`; PUT …/head switches back). 404 ' +
          '`message_not_found` for a message not in the conversation',
      ),
    promptId: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe(
        "Start from a prompt of the Agent's Space prompt library: its text is the user message, or comes before " +
          '`message` (a blank line between). The prompt version used is recorded in the answer’s provenance ' +
          '(`GET /provenance?source=prompt:<promptId>@<version>`). 404 `prompt_not_found` for a prompt that is not ' +
          "the Agent's Space's (or an Agent without a Space, or a Space whose prompts the caller may not read)",
      ),
    promptVersion: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('With promptId: this earlier version of the prompt (default: its current version)'),
    stream: z
      .boolean()
      .default(false)
      .describe(
        'Answer as Server-Sent Events: conversation, retrieval, compaction, delta, tool_call, tool_result, then done or error',
      ),
    continueOnDisconnect: z
      .boolean()
      .default(false)
      .describe(
        'With stream: a client that disconnects (a reload) does not stop the turn: it runs to its end and is recorded ' +
          'complete; POST …/conversation/{conversationId}/stop stops it',
      ),
    visibility: z
      .enum(['normal', 'private', 'incognito'])
      .optional()
      .describe(
        'On creation only. private: listed for its owner only, never to Apps; incognito: kept only in the serving ' +
          "process's memory (never stored, never listed, forgotten after INCOGNITO_IDLE_MINUTES idle or a restart)",
      ),
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Another of the Agent's allowed chat models for this turn"),
  })
  .refine((body) => body.message !== undefined || body.promptId !== undefined, {
    message: 'send a message, a promptId, or both',
    path: ['message'],
  })
  .refine((body) => body.promptVersion === undefined || body.promptId !== undefined, {
    message: 'promptVersion needs promptId',
    path: ['promptVersion'],
  })
  .refine((body) => body.parentMessageId === undefined || body.conversationId !== undefined, {
    message: 'parentMessageId needs conversationId (a branch starts in an existing conversation)',
    path: ['parentMessageId'],
  });
export type SendMessageBody = z.output<typeof SendMessageBody>;

export const CitationDto = z.object({
  index: z.number().int().describe('The n of the `[n]` marker in the answer'),
  documentId: z.string(),
  documentName: z.string(),
  documentVersion: z.number().int(),
  contentHash: z.string(),
  sectionPath: z.array(z.string()).readonly(),
  start: z.number().int().describe('Offsets into GET /knowledge/{agentId}/documents/{documentId}/content'),
  end: z.number().int(),
  score: z.number(),
  summary: z
    .object({ nodeId: z.string(), level: z.number().int(), text: z.string() })
    .nullable()
    .optional()
    .describe('With includeAiSummary: the matching cluster summary of the section-summary index'),
});

const Usage = z.object({
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
});

export const TurnResultDto = z.object({
  conversationId: z.string(),
  created: z.boolean().describe('true when this turn created the conversation'),
  userMessage: z.object({ id: z.string(), createdAt: z.string() }),
  message: z.object({
    id: z.string(),
    role: z.literal('assistant'),
    content: z
      .string()
      .describe('The answer; `[n]` markers cite `citations` (markers pointing at nothing are removed)'),
    citations: z.array(CitationDto),
    model: z.string(),
    finishReason: z.string().nullable(),
    status: z.enum(['complete', 'incomplete']),
    usage: Usage.describe('Tokens of every model call of the answer (tool steps included)'),
    createdAt: z.string(),
    memory: z
      .object({
        saved: z.array(
          z.object({ id: z.string(), bucket: z.enum(['personal', 'shared']), text: z.string() }),
        ),
        proposals: z
          .array(z.object({ id: z.string(), text: z.string() }))
          .describe(
            'Team facts proposed to me for the shared memory (answer them under /memory/{agentId}/proposals)',
          ),
        flagged: z
          .string()
          .nullable()
          .describe('`Memory not saved - flagged as unsafe.` when screening refused one'),
        proposalsLimited: z
          .string()
          .optional()
          .describe(
            'Present when a team fact was not proposed: MEMORY_PROPOSALS_PER_HOUR reached on this Agent',
          ),
      })
      .optional()
      .describe('What the turn remembered (only when it saved, proposed or refused something)'),
  }),
});

export const ConversationDto = z.object({
  id: z.string(),
  agentId: z.string(),
  title: z.string().nullable(),
  visibility: z.enum(['normal', 'private', 'incognito']),
  archived: z.boolean(),
  pinned: z.boolean().describe('Pinned by its owner: the web app lists it first'),
  headId: z
    .string()
    .nullable()
    .describe('The newest message of the branch the conversation continues (null: no message yet)'),
  messageCount: z.number().int(),
  lastMessageAt: z.string().nullable(),
  createdAt: z.string(),
});

export const ConversationListQuery = ListQuery.extend({
  archived: z
    .enum(['false', 'true', 'all'])
    .default('false')
    .describe(
      'false (default): active ones; true: archived ones; all: both. Incognito conversations are never listed',
    ),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'Only the conversations whose title or messages contain this text (case-insensitive), newest first, in one page ' +
        '(no cursor): the newest 200 conversations and, of them, at most 5,000 messages are searched',
    ),
});

export const MessageDto = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string().nullable(),
  citations: z.array(CitationDto),
  attachments: z.array(
    z.object({
      documentId: z.string().nullable(),
      name: z.string(),
      mimeType: z.string(),
      sizeBytes: z.number().int(),
    }),
  ),
  status: z
    .enum(['complete', 'incomplete'])
    .describe('incomplete: the client left or the model failed mid-answer'),
  model: z.string().nullable(),
  parentId: z.string().nullable().describe('The message it follows (null: the first of its branch)'),
  siblings: z
    .object({
      ids: z.array(z.string()).describe('Its alternatives and itself, oldest first'),
      index: z.number().int().describe('Its place among them'),
    })
    .nullable()
    .describe(
      'The other messages of its role after the same parent (an edited or regenerated question set beside it): ' +
        'switch to one with PUT …/head. null: it has none',
    ),
  createdAt: z.string(),
});

export const MessagesQuery = ListQuery.extend({
  branches: z
    .enum(['current', 'all'])
    .default('current')
    .describe(
      'current (default): the branch the conversation continues, from its first message to `headId`; all: every ' +
        'message of every branch, oldest first (each names its `parentId`)',
    ),
});

export const SwitchBranchBody = z.strictObject({
  messageId: z
    .string()
    .min(1)
    .max(128)
    .describe('Any message of the branch to continue: the conversation moves to its newest message'),
});

export const MessagesDto = z.object({
  data: z.array(MessageDto),
  nextCursor: z.string().nullable(),
  compaction: z
    .object({
      checkpointId: z.string(),
      throughMessageId: z.string(),
      throughOffset: z.number().int(),
      summary: z
        .string()
        .nullable()
        .describe('What the model reads instead of the messages up to the boundary (null once erased)'),
    })
    .nullable()
    .describe("Where the model's view of the history starts (the raw history is always listed whole)"),
});

export const ChangeConversationBody = z
  .strictObject({
    title: z.string().trim().min(1).max(200).optional(),
    archived: z.boolean().optional(),
    pinned: z.boolean().optional(),
    visibility: z
      .enum(['normal', 'private'])
      .optional()
      .describe('normal ↔ private (incognito cannot be changed)'),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'name at least one of title, archived, pinned, visibility',
  });

export const ProvenanceDto = z.object({
  messageId: z.string(),
  conversationId: z.string(),
  model: z.string(),
  provider: z.string(),
  sampling: z.object({
    temperature: z.number().nullable(),
    topP: z.number().nullable(),
    topK: z.number().nullable(),
  }),
  agentRevision: z
    .number()
    .int()
    .nullable()
    .describe("The Agent stream's revision at the turn (its prompt then)"),
  systemPromptSha256: z.string(),
  sources: z.array(CitationDto).describe('Every source retrieved in the turn, cited or not'),
  toolCalls: z.array(
    z.object({
      callId: z
        .string()
        .optional()
        .describe(
          "An App tool's call: the id of its events (requested, approved or denied, completed or failed)",
        ),
      name: z.string(),
      arguments: z.string().nullable(),
      ok: z.boolean(),
      sources: z.array(z.number().int()),
      view: z
        .object({
          appId: z.string(),
          uri: z.string().describe('The `ui://` resource: GET /mcp-views/{agentId}/{appId}?uri= serves it'),
          result: z
            .unknown()
            .describe('The MCP result the view is given (`content`, `structuredContent`); null once erased'),
        })
        .optional()
        .describe("The MCP App view the call's result renders in"),
    }),
  ),
  steps: z.number().int(),
  checkpointId: z.string().nullable(),
  contextProviders: z.array(z.string()),
  contextItems: z
    .array(
      z.object({
        kind: z.string(),
        id: z.string(),
        version: z.number().int().describe('The version number'),
        versionId: z
          .string()
          .optional()
          .describe('The version id, as the routes name it (Skills: GET /skills/{id}/versions/{versionId})'),
      }),
    )
    .optional()
    .describe('The memories and Skill versions the answer used'),
  status: z.enum(['complete', 'incomplete']),
  usage: Usage,
  createdAt: z.string(),
});
