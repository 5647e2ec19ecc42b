// Wire shapes of the Knowledge API, shared by its slices: they validate requests and generate the OpenAPI document.
import { z } from 'zod';
import { AsOfQuery, ListQuery } from '#http';
import { DOCUMENT_SCOPES, DOCUMENT_STATUSES } from './document.events.js';
import { MAX_DOCUMENT_NAME } from './document.decider.js';
import { DEFAULT_TAG_COLOR, MAX_TAG_NAME } from './tag.decider.js';

/** Text documents sent as JSON; files come as multipart uploads. */
export const MAX_TEXT_CHARS = 5_000_000;

const tagIds = z.array(z.string().min(1).max(128)).max(100).describe('Ids of this Agent’s tags');

export const AddTextDocumentBody = z.strictObject({
  name: z.string().trim().min(1).max(MAX_DOCUMENT_NAME),
  text: z.string().min(1).max(MAX_TEXT_CHARS).describe('The content, as Markdown or plain text'),
  scope: z
    .enum(DOCUMENT_SCOPES)
    .default('agent')
    .describe('agent: this Agent only; space: every Agent of its Space; global: every Agent (admins only)'),
  tagIds: tagIds.default([]),
});

export const ChangeDocumentBody = z
  .strictObject({
    name: z.string().trim().min(1).max(MAX_DOCUMENT_NAME).optional(),
    text: z
      .string()
      .min(1)
      .max(MAX_TEXT_CHARS)
      .optional()
      .describe('Replaces the content: it is processed again'),
    tagIds: tagIds
      .optional()
      .describe(
        "This Agent's tags on the document afterwards (other Agents' tags on a shared document stay)",
      ),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one of name, text, tagIds');

export const DocumentListQuery = ListQuery.extend({
  scope: z
    .enum([...DOCUMENT_SCOPES, 'all'])
    .default('all')
    .describe('Which level: the Agent’s own, its Space’s, Global, or all three'),
  status: z.enum(DOCUMENT_STATUSES).optional(),
  asOf: AsOfQuery.shape.asOf.describe(
    'The documents the Agent reached at this time (ISO 8601), with their status then, in one page (folded from the log)',
  ),
});

export const DocumentDto = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(DOCUMENT_SCOPES),
  ownerId: z.string().describe('The Agent, the Space, or `global`'),
  provider: z
    .string()
    .describe('`upload`, or `app:<appId>` for a resource of an MCP App synced into the Knowledge'),
  sourceUri: z.string().nullable().describe("A synced document's resource URI at its App (null for uploads)"),
  status: z.enum(DOCUMENT_STATUSES),
  tags: z
    .array(z.string())
    .describe(
      "This Agent's tags on the document: tags are per Agent, so a Space or Global document shows each Agent only its own",
    ),
  contentHash: z.string(),
  sizeBytes: z.number(),
  mimeType: z.string().nullable(),
  lastModified: z.string(),
  indexedAt: z
    .string()
    .nullable()
    .describe('When its current content was indexed (it became Ready); null before it first did'),
  createdAt: z.string(),
  error: z.object({ reason: z.string(), message: z.string() }).nullable(),
});

export const CreateTagBody = z.strictObject({
  name: z.string().trim().min(1).max(MAX_TAG_NAME),
  color: z.string().default(DEFAULT_TAG_COLOR).describe('A hex colour such as #1e88e5'),
});

export const ChangeTagBody = z
  .strictObject({
    name: z.string().trim().min(1).max(MAX_TAG_NAME).optional(),
    color: z.string().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send name or color');

export const TagDto = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  color: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const BULK_ACTIONS = ['addTag', 'removeTag', 'reprocess', 'forceReprocess', 'delete'] as const;

export const BulkDocumentsBody = z
  .strictObject({
    action: z.enum(BULK_ACTIONS).describe('forceReprocess bypasses the content-hash check'),
    documentIds: z.array(z.string().min(1).max(128)).min(1).max(1000),
    tagId: z.string().min(1).max(128).optional().describe('For addTag and removeTag'),
  })
  .refine((body) => !['addTag', 'removeTag'].includes(body.action) || body.tagId !== undefined, {
    message: 'addTag and removeTag need tagId',
    path: ['tagId'],
  });

export const BulkResultDto = z.object({
  action: z.enum(BULK_ACTIONS),
  results: z.array(
    z.object({
      documentId: z.string(),
      ok: z.boolean(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    }),
  ),
});

export const SearchBody = z.strictObject({
  query: z.string().trim().min(1).max(2000),
  limit: z.number().int().min(1).max(50).default(8),
  tagIds: z
    .array(z.string().min(1).max(128))
    .max(100)
    .optional()
    .describe('Only documents carrying one of these'),
  mode: z
    .enum(['hybrid', 'bm25', 'vector'])
    .default('hybrid')
    .describe('hybrid fuses BM25 and vectors (RRF)'),
  rerank: z.boolean().default(false).describe("Re-order the hits with the instance's reranker"),
});

const SummaryMatchDto = z.object({
  nodeId: z.string(),
  level: z.number(),
  text: z.string(),
  score: z.number(),
  documentIds: z.array(z.string()).describe('The documents the summary covers'),
  leafCount: z.number().describe('Chunks under the summary'),
  buildId: z.string(),
  builtAt: z.string(),
});

export const SearchResultDto = z.object({
  query: z.string(),
  hits: z.array(
    z.object({
      documentId: z.string(),
      documentName: z.string(),
      sectionPath: z.array(z.string()).describe('The headings above the passage, outermost first'),
      start: z.number().describe("Offset of the passage in the document's extracted text"),
      end: z.number(),
      text: z.string(),
      score: z.number(),
    }),
  ),
  summary: SummaryMatchDto.nullable()
    .optional()
    .describe(
      "Present when the Agent's `includeAiSummary` is on: the section summary closest to the query (null without a built index)",
    ),
});

export const SummaryBuildBody = z.strictObject({
  full: z
    .boolean()
    .default(false)
    .describe('Summarise every group again instead of reusing the summaries of groups that did not change'),
});

const SummaryBuildDto = z.object({
  buildId: z.string(),
  full: z.boolean(),
  model: z.string(),
  state: z.enum(['requested', 'running', 'completed', 'cancelled', 'failed']),
  attempt: z.number(),
  level: z.number().describe('The tree level being summarised (1 = summaries of chunks)'),
  groupsDone: z.number(),
  groupsTotal: z.number().describe('Groups of the current level'),
  leafCount: z.number().nullable(),
  documentCount: z.number().nullable(),
  reusedSummaries: z.number().nullable().describe('Summaries taken over from the previous tree'),
  error: z.object({ reason: z.string(), message: z.string() }).nullable(),
  requestedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

export const SummaryIndexStatusDto = z.object({
  agentId: z.string(),
  status: z.enum(['none', 'building', 'ready']),
  serving: z
    .object({
      buildId: z.string(),
      model: z.string(),
      nodeCount: z.number(),
      levels: z.number(),
      leafCount: z.number(),
      documentCount: z.number(),
      builtAt: z.string(),
    })
    .nullable()
    .describe('The tree searches use; a build replaces it only when it completes'),
  build: SummaryBuildDto.nullable().describe('The latest build, under way or finished'),
});

export const SummaryTreeDto = z.object({
  agentId: z.string(),
  buildId: z.string(),
  model: z.string(),
  builtAt: z.string(),
  rootId: z.string().nullable(),
  levels: z.number(),
  leafCount: z.number(),
  nodes: z.array(
    z.object({
      id: z.string(),
      level: z.number(),
      summary: z.string(),
      children: z.array(z.string()),
      documentIds: z.array(z.string()),
      leafCount: z.number(),
    }),
  ),
});

/** The fields of a multipart upload (the file itself is the `file` part). */
export const UploadFields = z.strictObject({
  name: z.string().trim().min(1).max(MAX_DOCUMENT_NAME).optional().describe("Default: the file's name"),
  scope: z.enum(DOCUMENT_SCOPES).default('agent'),
  tagIds: z
    .string()
    .max(10_000)
    .optional()
    .transform((value) =>
      value
        ? value
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean)
        : [],
    )
    .describe('Comma-separated tag ids'),
});

export const DownloadDocumentsBody = z.strictObject({
  documentIds: z.array(z.string().min(1).max(128)).min(1).max(500),
});
