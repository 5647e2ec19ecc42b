// One document version through the pipeline, every step recorded as an event: Processing → sniff the type from the
// bytes → parse → chunk (token sized, following the structure) → embed in batches through the registry's embedding
// model → index the chunks (replacing the previous version's atomically, so search serves the old version until the
// new one is Ready) → Ready; or Failed with the reason. Unchanged content sent for re-processing is skipped (unless
// forced). Every outcome names the version it worked on, so a job that raced with newer content changes nothing.
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { ModelGateway } from '#model-gateway';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig, PlatformError } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import { SEARCH_INDEX, type IndexedChunk, type SearchIndex } from '#search';
import {
  ingestionContext,
  RecordDocumentProcessing,
  type ProcessingRecord,
} from '../commands/record-document-processing/record-document-processing.command.js';
import { documentDecider } from '../document.decider.js';
import { documentStreamId, type DocumentState } from '../document.events.js';
import type { IngestionJob } from '../ingestion-queue.js';
import { IngestionError, prepareDocument, type ParseLimits } from '../ingestion/index.js';
import { embedInBatches, systemScope } from '../system-calls.js';
import { IndexAliases } from './index-aliases.js';
import { ContentPurge } from './purge.js';

/** A chunk as the chunks route shows it: its text and where it sits in the extracted text. */
export interface DocumentChunk {
  readonly index: number;
  readonly sectionPath: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export const MAX_ATTEMPTS = 3;

type WithContent = Extract<DocumentState, { content: unknown }>;

@Injectable()
export class DocumentPipeline {
  private readonly parseLimits: Partial<ParseLimits>;

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    private readonly gateway: ModelGateway,
    private readonly indexes: IndexAliases,
    private readonly purge: ContentPurge,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.parseLimits = { maxMemoryMb: config.parseMemoryMb, timeoutMs: config.parseTimeoutMs };
  }

  /** Works one job: a deleted document is purged, a stale job ignored, the current version processed. */
  async process(job: IngestionJob): Promise<void> {
    const { state } = await this.aggregates.load(documentStreamId(job.documentId), documentDecider);
    if (state.status === 'deleted') return this.purge.purge(job.documentId, state);
    if (state.status === 'absent' || state.version !== job.version) return;
    if (state.status === 'Ready' || state.status === 'Failed') return;
    if (!job.force && state.readyContentHash === state.content.contentHash) {
      await this.record({ type: 'SkipProcessing', documentId: job.documentId, version: job.version });
      return;
    }
    const started = await this.record({
      type: 'StartProcessing',
      documentId: job.documentId,
      version: job.version,
    });
    if (started === 0) return;
    const current = await this.aggregates.load(documentStreamId(job.documentId), documentDecider);
    if (current.state.status !== 'Processing') return;
    if (current.state.attempts > MAX_ATTEMPTS)
      return this.fail(job, 'too_many_attempts', `processing was tried ${MAX_ATTEMPTS} times`);
    try {
      await this.ingest(job, current.state);
    } catch (error) {
      if (error instanceof IngestionError) return this.fail(job, error.reason, error.message);
      throw error;
    }
  }

  /** The queue gave up on a job after its attempts: the document fails with what went wrong. */
  async giveUp(job: IngestionJob, error: unknown): Promise<void> {
    this.logger.error({ err: error, documentId: job.documentId, version: job.version }, 'ingestion gave up');
    if (job.version === 0) return;
    // A platform error (the embedding model's upstream failing or timing out) says what went wrong; others are ours.
    if (error instanceof PlatformError)
      await this.fail(job, error.code, `processing failed ${MAX_ATTEMPTS} times: ${error.message}`);
    else await this.fail(job, 'internal_error', 'processing failed repeatedly; it has been logged');
  }

  /**
   * The indexable chunks of one version of a document, from its stored bytes: sniff, parse, chunk, embed. Throws an
   * IngestionError for a document that cannot be indexed (the reason it fails with).
   */
  async prepare(
    documentId: string,
    version: number,
    state: WithContent,
  ): Promise<{ chunks: IndexedChunk[]; text: string; mimeType: string; dimensions: number }> {
    const bytes = await this.blobs.get(state.content.blobId);
    if (!bytes)
      throw new IngestionError(
        'content_missing' as never,
        'the uploaded content is no longer in the blob store',
      );
    // Sniffing, decoding, parsing and chunking run in a bounded child process: nothing a file holds can stop the api.
    const prepared = await prepareDocument(bytes, state.name, this.parseLimits);
    const chunks = prepared.chunks;
    const embeddings = await this.embed(
      chunks.map((chunk) => chunk.text),
      state.scope === 'agent' ? state.ownerId : null,
      `ingestion:${documentId}:${version}`,
      // A Space's document counts toward the Space's spend limit (an Agent's toward its Agent's Space).
      state.scope === 'space' ? state.ownerId : undefined,
    );
    return {
      text: prepared.text,
      mimeType: prepared.mimeType,
      dimensions: embeddings[0]!.length,
      chunks: chunks.map((chunk, i) => ({
        chunkId: `${documentId}:${version}:${chunk.index}`,
        documentId,
        version,
        ownerId: state.ownerId,
        tagIds: state.tagIds,
        sectionPath: chunk.sectionPath,
        start: chunk.start,
        end: chunk.end,
        text: chunk.text,
        embedding: embeddings[i]!,
        documentName: state.name,
      })),
    };
  }

  /** Embeds texts in batches with the instance's embedding model, as the platform's own usage. */
  embed(
    texts: readonly string[],
    agentId: string | null,
    correlationId: string,
    spaceId?: string,
  ): Promise<number[][]> {
    return embedInBatches(this.gateway, systemScope(agentId, correlationId, spaceId), texts);
  }

  /** Records a step of a document's processing; returns the number of events appended (0: a repeat). */
  async record(record: ProcessingRecord): Promise<number> {
    return (await this.bus.execute(new RecordDocumentProcessing(record, ingestionContext(record.documentId))))
      .appended;
  }

  private async ingest(job: IngestionJob, state: WithContent): Promise<void> {
    const prepared = await this.prepare(job.documentId, job.version, state);
    const text = await this.blobs.put(Buffer.from(prepared.text, 'utf8'), { contentType: 'text/plain' });
    const chunkList: DocumentChunk[] = prepared.chunks.map((chunk, index) => ({
      index,
      sectionPath: chunk.sectionPath,
      start: chunk.start,
      end: chunk.end,
      text: chunk.text,
    }));
    const chunksBlob = await this.blobs.put(Buffer.from(JSON.stringify(chunkList), 'utf8'), {
      contentType: 'application/json',
    });
    const indexes = await this.indexes.targets(prepared.dimensions);
    for (const index of indexes)
      await this.search.upsertDocument(index, job.documentId, job.version, prepared.chunks);
    // Tags changed while this version was processed: the index takes the current ones.
    const now = await this.aggregates.load(documentStreamId(job.documentId), documentDecider);
    if ('tagIds' in now.state && now.state.tagIds.join() !== state.tagIds.join())
      for (const index of indexes) await this.search.setDocumentTags(index, job.documentId, now.state.tagIds);
    await this.record({
      type: 'CompleteProcessing',
      documentId: job.documentId,
      version: job.version,
      mimeType: prepared.mimeType,
      textBlobId: text.id,
      chunkCount: prepared.chunks.length,
      chunksBlobId: chunksBlob.id,
    });
  }

  private async fail(job: IngestionJob, reason: string, message: string): Promise<void> {
    this.logger.warn(
      { documentId: job.documentId, version: job.version, reason },
      'document failed ingestion',
    );
    await this.record({
      type: 'FailProcessing',
      documentId: job.documentId,
      version: job.version,
      reason,
      message,
    });
  }
}
