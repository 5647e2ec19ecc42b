// The Knowledge API of an Agent (spec: the /knowledge/{agentId}/… rows): documents at three levels (the Agent's own,
// its Space's, Global) and the Agent's tags. A document's bytes go to the blob store first, then its facts to the log;
// processing (Pending → Processing → Ready/Failed) is the ingestion pipeline's work.
import { accessibleAgent } from '#agents';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { zip } from 'fflate';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ConflictError, ForbiddenError, NotFoundError, PlatformError, ValidationError } from '#kernel';
import { newEntityId } from '#eventsourcing';
import { IdempotencyInterceptor, commandContext, CurrentCaller, type Caller } from '#identity';
import { listOf, parseOrThrow, ZodBody, ZodQuery, ApiRoute } from '#http';
import { CommandRunner, ReadYourWrites } from '#platform';
import { documentDecider } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import { READ_STORE, type Filter, type ReadStore } from '#read-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import { callerScope, ModelGateway } from '#gateway';
import { LIVE_INDEX_ALIAS, type DocumentChunk } from '../ingestion.worker.js';
import type { AgentView } from '#agents';
import {
  KNOWLEDGE_DOCUMENTS,
  KNOWLEDGE_TAGS,
  type DocumentView,
  type TagView,
} from '../knowledge.read-model.js';
import type { DocumentCommand } from '../document.decider.js';
import type { DocumentContent, DocumentScope } from '../document.events.js';
import type { TagCommand } from '../tag.decider.js';
import { ExecuteDocumentCommand, ExecuteTagCommand, type WriteResult } from '../knowledge.commands.js';
import { TAG_DELETION_PROCESS } from '../tag-deletion.process.js';
import { GLOBAL_OWNER, visibleOwners } from '../visible-owners.js';
import { SummarySearch } from '../summary/summary-search.js';
import {
  AddTextDocumentBody,
  BulkDocumentsBody,
  BulkResultDto,
  ChangeDocumentBody,
  DownloadDocumentsBody,
  SearchBody,
  SearchResultDto,
  ChangeTagBody,
  CreateTagBody,
  DocumentDto,
  DocumentListQuery,
  TagDto,
  UploadFields,
} from './knowledge.schemas.js';

const READ_MODELS = ['knowledge'];

const toDocumentDto = (view: DocumentView) => ({
  id: view.id,
  name: view.name,
  scope: view.scope,
  ownerId: view.ownerId,
  provider: view.provider,
  status: view.status,
  tags: view.tagIds,
  contentHash: view.contentHash,
  sizeBytes: view.sizeBytes,
  mimeType: view.mimeType,
  lastModified: view.lastModified,
  createdAt: view.createdAt,
  error: view.error,
});

const toTagDto = (view: TagView) => ({
  id: view.id,
  agentId: view.agentId,
  name: view.name,
  color: view.color,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});

const MAX_ZIP_BYTES = 200 * 1024 * 1024;

/** A file name not yet in the archive: `a.md`, `a (2).md`, … (and never a path). */
function uniqueName(name: string, taken: Record<string, unknown>): string {
  const base = name.replace(/[\\/]/g, '_');
  const dot = base.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
  let candidate = base;
  for (let n = 2; candidate in taken; n++) candidate = `${stem} (${n})${extension}`;
  return candidate;
}

const declaredTextType = (name: string): string =>
  /\.(md|markdown)$/i.test(name) ? 'text/markdown' : 'text/plain';

/**
 * The multipart parser's own failures (no boundary, a part cut short, the body ending early) are the client's: 400
 * `invalid_multipart`. Our errors and @fastify/multipart's limits (which carry a 4xx status) pass as they are.
 */
const malformedMultipart = (error: unknown): unknown => {
  if (error instanceof PlatformError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  const reason = error instanceof Error ? error.message : 'unreadable';
  return new ValidationError('invalid_multipart', `the multipart/form-data body is malformed: ${reason}`);
};

const DocumentList = listOf(DocumentDto);

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class KnowledgeController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly consistency: ReadYourWrites,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    private readonly gateway: ModelGateway,
    private readonly commands: CommandRunner,
    private readonly summaries: SummarySearch,
  ) {}

  private get documents() {
    return this.readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS);
  }

  private get tags() {
    return this.readStore.reader<TagView>(KNOWLEDGE_TAGS);
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'List the documents an Agent can search: its own, its Space’s and Global ones',
    query: DocumentListQuery,
    response: { status: 200, schema: DocumentList, description: 'Oldest first' },
    errors: [400, 403, 404],
  })
  @Get('documents')
  async listDocuments(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(DocumentListQuery)) query: z.output<typeof DocumentListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const owners =
      query.scope === 'all'
        ? visibleOwners(agent)
        : [
            query.scope === 'agent'
              ? agent.id
              : query.scope === 'space'
                ? (agent.spaceId ?? '')
                : GLOBAL_OWNER,
          ];
    const filter: Filter = {
      ownerId: { $in: owners },
      ...(query.scope === 'all' ? {} : { scope: query.scope }),
      ...(query.status ? { status: query.status } : {}),
    };
    const page = await this.documents.find(filter, {
      sort: { field: 'createdAt' },
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
    return { data: page.data.map(toDocumentDto), nextCursor: page.nextCursor };
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'One document (extension)',
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [403, 404],
  })
  @Get('documents/:documentId')
  async getDocument(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    return toDocumentDto(await this.visibleDocument(agent, documentId));
  }

  /**
   * A text document as JSON `{ name, text, scope?, tagIds? }`, or a file as multipart/form-data (fields `name?`,
   * `scope?`, `tagIds?` comma-separated, then the `file` part). The bytes go to the blob store; the type is sniffed
   * from them later, never taken from the name or the declared type.
   */
  @ApiRoute({
    tag: 'Knowledge',
    summary:
      'Add a document at the Agent, Space or Global level: JSON text, or a file as multipart/form-data',
    description:
      'JSON `{ name, text, scope?, tagIds? }`, or multipart/form-data with fields `name?`, `scope?`, `tagIds?` ' +
      '(comma-separated) and then the `file` part (at most 25 MiB; text, Markdown, HTML, PDF, DOCX, CSV or JSON, ' +
      'sniffed from the bytes). The document starts `Pending`; ingestion takes it to `Ready` or `Failed`.',
    body: AddTextDocumentBody,
    response: { status: 201, schema: DocumentDto, description: 'The document' },
    errors: [400, 403, 404],
    idempotent: true,
  })
  @Post('documents')
  async addDocument(
    @Param('agentId') agentId: string,
    @Req() request: FastifyRequest,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const input = request.isMultipart()
      ? await this.readUpload(request)
      : (() => {
          const body = parseOrThrow(AddTextDocumentBody, request.body);
          return {
            ...body,
            bytes: Buffer.from(body.text, 'utf8'),
            declaredType: declaredTextType(body.name),
          };
        })();
    const ownerId = this.ownerFor(agent, input.scope, caller);
    await this.requireTags(agent, input.tagIds);
    const content = await this.store(input.bytes, input.declaredType);
    const documentId = newEntityId(commandContext(caller), 'doc');
    await this.executeDocument(
      {
        type: 'AddDocument',
        documentId,
        name: input.name,
        scope: input.scope,
        ownerId,
        provider: 'upload',
        content,
        tagIds: input.tagIds,
      },
      caller,
    );
    const added = await this.visibleDocument(agent, documentId);
    await this.keepStored(input.bytes, content);
    return toDocumentDto(added);
  }

  /** Reads a multipart upload: the fields, then exactly one file part. */
  private async readUpload(request: FastifyRequest) {
    const fields: Record<string, string> = {};
    let file: { bytes: Buffer; filename: string; mimetype: string } | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || file)
            throw new ValidationError('invalid_upload', 'send one file, in the part named `file`', 'file');
          file = { bytes: await part.toBuffer(), filename: part.filename, mimetype: part.mimetype };
        } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      }
    } catch (error) {
      throw malformedMultipart(error);
    }
    if (!file) throw new ValidationError('missing_file', 'the upload has no `file` part', 'file');
    if (file.bytes.length === 0)
      throw new ValidationError('empty_file', 'the uploaded file is empty', 'file');
    const parsed = parseOrThrow(UploadFields, fields);
    const name = parsed.name ?? (file.filename.trim() || 'upload');
    return {
      name,
      scope: parsed.scope,
      tagIds: parsed.tagIds,
      bytes: file.bytes,
      declaredType: file.mimetype || null,
    };
  }

  /** The document's history as an ingestion log: every fact of its stream, oldest first (extension). */
  @ApiRoute({
    tag: 'Knowledge',
    summary: "A document's ingestion log: every event of its history, oldest first (extension)",
    response: { status: 200, description: '`{ documentId, entries: [{ at, event, actor, details }] }`' },
    errors: [403, 404],
  })
  @Get('documents/:documentId/log')
  async documentLog(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    await this.visibleDocument(agent, documentId);
    const events = await this.commands.store.readStream(documentStreamId(documentId));
    return {
      documentId,
      entries: events.map((event) => {
        const {
          documentId: _documentId,
          content: _content,
          ...details
        } = event.data as Record<string, unknown>;
        return { at: event.metadata.occurredAt, event: event.type, actor: event.metadata.actor, details };
      }),
    };
  }

  /** The text extracted from the last Ready version, as the chunks' offsets cite it (extension). */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The text extracted from the last Ready version, which search citations point into (extension)',
    response: { status: 200, description: 'text/plain' },
    errors: [403, 404, { status: 409, description: '`document_not_ready`: no version has been Ready yet' }],
  })
  @Get('documents/:documentId/content')
  async documentContent(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    await this.visibleDocument(agent, documentId);
    const { state } = await this.commands.load(documentStreamId(documentId), documentDecider);
    const textBlobId = 'textBlobId' in state ? state.textBlobId : null;
    const text = textBlobId ? await this.blobs.get(textBlobId) : null;
    if (!text)
      throw new ConflictError('document_not_ready', `document '${documentId}' has no extracted text yet`);
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return text.toString('utf8');
  }

  /** The chunks of the last Ready version: what search indexes and cites (extension). */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The chunks of the last Ready version: text, section path and offsets (extension)',
    response: {
      status: 200,
      description: '`{ documentId, chunks: [{ index, sectionPath, start, end, text }] }`',
    },
    errors: [403, 404, { status: 409, description: '`document_not_ready`: no version has been Ready yet' }],
  })
  @Get('documents/:documentId/chunks')
  async documentChunks(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    await this.visibleDocument(agent, documentId);
    const { state } = await this.commands.load(documentStreamId(documentId), documentDecider);
    const chunksBlobId = 'chunksBlobId' in state ? state.chunksBlobId : null;
    const json = chunksBlobId ? await this.blobs.get(chunksBlobId) : null;
    if (!json || !('version' in state))
      throw new ConflictError('document_not_ready', `document '${documentId}' has no chunks yet`);
    return { documentId, chunks: JSON.parse(json.toString('utf8')) as DocumentChunk[] };
  }

  /** The uploaded file as it was sent (extension). */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The uploaded file, as sent (extension)',
    response: { status: 200, description: 'The bytes, with the sniffed content type' },
    errors: [403, 404],
  })
  @Get('documents/:documentId/download')
  async download(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const document = await this.visibleDocument(agent, documentId);
    const bytes = await this.blobs.get(document.blobId);
    if (!bytes) throw new NotFoundError('Document content', documentId);
    void reply
      .header('content-type', document.mimeType ?? 'application/octet-stream')
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(document.name)}`);
    return bytes;
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Rename a document, replace its content (processed again) or set its tags',
    body: ChangeDocumentBody,
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [400, 403, 404],
  })
  @Put('documents/:documentId')
  async changeDocument(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Body(new ZodBody(ChangeDocumentBody)) body: z.output<typeof ChangeDocumentBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const document = await this.writableDocument(agent, documentId, caller);
    if (body.tagIds) await this.requireTags(agent, body.tagIds);
    if (body.name !== undefined || body.text !== undefined) {
      const bytes = body.text !== undefined ? Buffer.from(body.text, 'utf8') : null;
      const content = bytes ? await this.store(bytes, declaredTextType(body.name ?? document.name)) : null;
      await this.executeDocument(
        {
          type: 'ChangeDocument',
          documentId,
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(content ? { content } : {}),
        },
        caller,
      );
      if (bytes && content) await this.keepStored(bytes, content);
    }
    if (body.tagIds) {
      const wanted = new Set(body.tagIds);
      for (const tagId of document.tagIds)
        if (!wanted.has(tagId))
          await this.executeDocument({ type: 'DetachDocumentTag', documentId, tagId }, caller);
      for (const tagId of wanted)
        if (!document.tagIds.includes(tagId))
          await this.executeDocument({ type: 'AttachDocumentTag', documentId, tagId }, caller);
    }
    return toDocumentDto(await this.visibleDocument(agent, documentId));
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Delete a document',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  })
  @Delete('documents/:documentId')
  @HttpCode(204)
  async deleteDocument(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    await this.writableDocument(agent, documentId, caller);
    await this.executeDocument({ type: 'DeleteDocument', documentId, reason: 'requested' }, caller);
  }

  /**
   * One action over many documents. Each document is its own command (and its own stream), so the answer lists the
   * outcome per document: one that is not found or not writable does not stop the others.
   */
  @ApiRoute({
    tag: 'Knowledge',
    summary:
      'One action over many documents: add or remove a tag, re-process, force re-process, delete (extension)',
    description:
      'Answers the outcome per document; a document that is not found or not writable does not stop the others.',
    body: BulkDocumentsBody,
    response: { status: 200, schema: BulkResultDto, description: 'One result per document' },
    errors: [400, 403, 404],
  })
  @Post('documents/bulk')
  @HttpCode(200)
  async bulk(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(BulkDocumentsBody)) body: z.output<typeof BulkDocumentsBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    if (body.tagId) await this.requireTags(agent, [body.tagId]);
    const results = [];
    for (const documentId of new Set(body.documentIds)) {
      try {
        await this.writableDocument(agent, documentId, caller);
        const command: DocumentCommand =
          body.action === 'addTag'
            ? { type: 'AttachDocumentTag', documentId, tagId: body.tagId! }
            : body.action === 'removeTag'
              ? { type: 'DetachDocumentTag', documentId, tagId: body.tagId! }
              : body.action === 'delete'
                ? { type: 'DeleteDocument', documentId, reason: 'requested' }
                : { type: 'RequestReprocessing', documentId, force: body.action === 'forceReprocess' };
        await this.executeDocument(command, caller);
        results.push({ documentId, ok: true });
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        results.push({ documentId, ok: false, error: { code: error.code, message: error.message } });
      }
    }
    return { action: body.action, results };
  }

  /** The original files of several documents as one zip (extension); names that repeat get ` (2)`, ` (3)`… */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The original files of several documents as one zip (extension)',
    body: DownloadDocumentsBody,
    response: { status: 200, description: 'application/zip' },
    errors: [400, 403, 404],
  })
  @Post('documents/download')
  @HttpCode(200)
  async downloadMany(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(DownloadDocumentsBody)) body: z.output<typeof DownloadDocumentsBody>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    const files: Record<string, Uint8Array> = {};
    let total = 0;
    for (const documentId of new Set(body.documentIds)) {
      const document = await this.visibleDocument(agent, documentId);
      const bytes = await this.blobs.get(document.blobId);
      if (!bytes) continue;
      total += bytes.length;
      if (total > MAX_ZIP_BYTES)
        throw new ValidationError(
          'download_too_large',
          `the selection is larger than ${MAX_ZIP_BYTES} bytes`,
          'documentIds',
        );
      files[uniqueName(document.name, files)] = bytes;
    }
    const archive = await new Promise<Uint8Array>((resolve, reject) =>
      zip(files, { level: 6 }, (error, data) => (error ? reject(error) : resolve(data))),
    );
    void reply
      .header('content-type', 'application/zip')
      .header('content-disposition', 'attachment; filename="documents.zip"');
    return Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Attach a tag to a document',
    response: { status: 201, schema: DocumentDto, description: 'The document' },
    errors: [403, 404],
  })
  @Post('documents/:documentId/tags/:tagId')
  async attachTag(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Param('tagId') tagId: string,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    await this.writableDocument(agent, documentId, caller);
    await this.requireTags(agent, [tagId]);
    await this.executeDocument({ type: 'AttachDocumentTag', documentId, tagId }, caller);
    return toDocumentDto(await this.visibleDocument(agent, documentId));
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Detach a tag from a document',
    response: { status: 200, schema: DocumentDto, description: 'The document' },
    errors: [403, 404],
  })
  @Delete('documents/:documentId/tags/:tagId')
  async detachTag(
    @Param('agentId') agentId: string,
    @Param('documentId') documentId: string,
    @Param('tagId') tagId: string,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    await this.writableDocument(agent, documentId, caller);
    await this.executeDocument({ type: 'DetachDocumentTag', documentId, tagId }, caller);
    return toDocumentDto(await this.visibleDocument(agent, documentId));
  }

  /**
   * Grounded passages for a question, from every level the Agent can reach and only from Ready documents: BM25 and
   * vector similarity fused by reciprocal rank fusion, optionally re-ordered by the reranker. Each hit cites its
   * document, section path and offsets.
   */
  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Search the Agent’s Knowledge (its own, its Space’s and Global Ready documents), with citations',
    description:
      'Hybrid retrieval: BM25 and vector similarity fused by reciprocal rank fusion; `rerank: true` re-orders the ' +
      "hits with the instance's reranker. When the Agent's `includeAiSummary` is on, `summary` is the section " +
      'summary (from its summary index) closest to the query. 409 `knowledge_disabled` when the Agent’s ' +
      'Knowledge Base is off.',
    body: SearchBody,
    response: { status: 200, schema: SearchResultDto, description: 'Best first' },
    errors: [400, 403, 404, 409],
  })
  @Post('search')
  @HttpCode(200)
  async searchKnowledge(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(SearchBody)) body: z.output<typeof SearchBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const agent = await accessibleAgent(this.readStore, agentId, caller);
    if (!agent.knowledgeEnabled)
      throw new ConflictError('knowledge_disabled', `Agent '${agentId}' has its Knowledge Base turned off`);
    if (body.tagIds) await this.requireTags(agent, body.tagIds);
    const index = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    if (!index) return { query: body.query, hits: [], ...(agent.includeAiSummary ? { summary: null } : {}) };
    const scope = callerScope(caller, 'core', agentId);
    const signal = AbortSignal.timeout(30_000);
    const embedding =
      body.mode === 'bm25' && !agent.includeAiSummary
        ? []
        : (
            await this.gateway.embed(
              scope,
              this.gateway.registry.defaultModel('embedding')!,
              [body.query],
              signal,
            )
          ).vectors[0]!;
    let hits = await this.search.search(index, {
      text: body.query,
      embedding: body.mode === 'bm25' ? [] : embedding,
      ownerIds: visibleOwners(agent),
      ...(body.tagIds ? { tagIds: body.tagIds } : {}),
      limit: body.limit,
      mode: body.mode,
    });
    let scores = hits.map((hit) => hit.score);
    if (body.rerank && hits.length > 1) {
      const reranked = await this.gateway.rerank(
        scope,
        this.gateway.registry.reranker(),
        body.query,
        hits.map((hit) => hit.text),
        signal,
      );
      const order = reranked.scores.map((score, i) => ({ score, i })).sort((a, b) => b.score - a.score);
      hits = order.map(({ i }) => hits[i]!);
      scores = order.map(({ score }) => score);
    }
    return {
      query: body.query,
      hits: hits.map((hit, i) => ({
        documentId: hit.documentId,
        documentName: hit.documentName,
        sectionPath: hit.sectionPath,
        start: hit.start,
        end: hit.end,
        text: hit.text,
        score: scores[i]!,
      })),
      ...(agent.includeAiSummary ? { summary: await this.summaries.match(agent, embedding) } : {}),
    };
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'List the Agent’s tags',
    response: { status: 200, schema: listOf(TagDto), description: 'Oldest first' },
    errors: [403, 404],
  })
  @Get('tags')
  async listTags(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller) {
    await accessibleAgent(this.readStore, agentId, caller);
    const page = await this.tags.find({ agentId }, { sort: { field: 'createdAt' }, limit: 1000 });
    return { data: page.data.map(toTagDto), nextCursor: null };
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Create a tag',
    body: CreateTagBody,
    response: { status: 201, schema: TagDto, description: 'The tag' },
    errors: [400, 403, 404],
    idempotent: true,
  })
  @Post('tags')
  async createTag(
    @Param('agentId') agentId: string,
    @Body(new ZodBody(CreateTagBody)) body: z.output<typeof CreateTagBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await accessibleAgent(this.readStore, agentId, caller);
    const tagId = newEntityId(commandContext(caller), 'tag');
    await this.executeTag({ type: 'CreateTag', tagId, agentId, name: body.name, color: body.color }, caller);
    return toTagDto(await this.agentTag(agentId, tagId));
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Rename or recolour a tag',
    body: ChangeTagBody,
    response: { status: 200, schema: TagDto, description: 'The tag' },
    errors: [400, 403, 404],
  })
  @Put('tags/:tagId')
  async changeTag(
    @Param('agentId') agentId: string,
    @Param('tagId') tagId: string,
    @Body(new ZodBody(ChangeTagBody)) body: z.output<typeof ChangeTagBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await accessibleAgent(this.readStore, agentId, caller);
    await this.agentTag(agentId, tagId);
    await this.executeTag({ type: 'ChangeTag', tagId, ...body }, caller);
    return toTagDto(await this.agentTag(agentId, tagId));
  }

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'Delete a tag (documents carrying it lose it)',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  })
  @Delete('tags/:tagId')
  @HttpCode(204)
  async deleteTag(
    @Param('agentId') agentId: string,
    @Param('tagId') tagId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    await accessibleAgent(this.readStore, agentId, caller);
    await this.agentTag(agentId, tagId);
    const result = await this.commandBus.execute<ExecuteTagCommand, WriteResult>(
      new ExecuteTagCommand({ type: 'DeleteTag', tagId }, commandContext(caller)),
    );
    // The documents that carried it lose it through the tag-deletion process manager; the answer waits until the
    // document lists show that (bounded, like every read-your-writes wait).
    if (await this.consistency.settle(result.position, [...READ_MODELS, TAG_DELETION_PROCESS]))
      await this.consistency.settle(await this.commands.store.headPosition(), READ_MODELS);
  }

  private ownerFor(agent: AgentView, scope: DocumentScope, caller: Caller): string {
    if (scope === 'agent') return agent.id;
    if (scope === 'space') {
      if (!agent.spaceId)
        throw new ValidationError('agent_has_no_space', `Agent '${agent.id}' is not in a Space`, 'scope');
      return agent.spaceId;
    }
    if (!caller.isAdmin) throw new ForbiddenError('admin_required', 'only admins add Global documents');
    return GLOBAL_OWNER;
  }

  /** Puts a document's bytes in the blob store: the content its events refer to by address. */
  private async store(bytes: Buffer, declaredType: string | null): Promise<DocumentContent> {
    const blob = await this.blobs.put(bytes, declaredType ? { contentType: declaredType } : {});
    return { blobId: blob.id, contentHash: blob.id, sizeBytes: blob.sizeBytes, declaredType };
  }

  /**
   * Puts the bytes back if a purge of another document with the same content removed them between `store` and the
   * event (the purge counts a content's users only once the documents list has caught up with the log).
   */
  private async keepStored(bytes: Buffer, content: DocumentContent): Promise<void> {
    if (!(await this.blobs.has(content.blobId))) await this.store(bytes, content.declaredType);
  }

  private async requireTags(agent: AgentView, tagIds: readonly string[]): Promise<void> {
    for (const tagId of tagIds) await this.agentTag(agent.id, tagId, 'tagIds');
  }

  private async agentTag(agentId: string, tagId: string, param?: string): Promise<TagView> {
    const tag = await this.tags.get(tagId);
    if (!tag || tag.agentId !== agentId) {
      const error = new NotFoundError('Tag', tagId);
      throw param ? Object.assign(error, { param }) : error;
    }
    return tag;
  }

  private async visibleDocument(agent: AgentView, documentId: string): Promise<DocumentView> {
    const document = await this.documents.get(documentId);
    if (!document || !visibleOwners(agent).includes(document.ownerId))
      throw new NotFoundError('Document', documentId);
    return document;
  }

  private async writableDocument(
    agent: AgentView,
    documentId: string,
    caller: Caller,
  ): Promise<DocumentView> {
    const document = await this.visibleDocument(agent, documentId);
    if (document.scope === 'global' && !caller.isAdmin)
      throw new ForbiddenError('admin_required', 'only admins change Global documents');
    return document;
  }

  private async executeDocument(command: DocumentCommand, caller: Caller): Promise<void> {
    const result = await this.commandBus.execute<ExecuteDocumentCommand, WriteResult>(
      new ExecuteDocumentCommand(command, commandContext(caller)),
    );
    await this.consistency.settle(result.position, READ_MODELS);
  }

  private async executeTag(command: TagCommand, caller: Caller): Promise<void> {
    const result = await this.commandBus.execute<ExecuteTagCommand, WriteResult>(
      new ExecuteTagCommand(command, commandContext(caller)),
    );
    await this.consistency.settle(result.position, READ_MODELS);
  }
}
