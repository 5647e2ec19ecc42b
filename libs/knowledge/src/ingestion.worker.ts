// The ingestion worker: takes the jobs the ingestion process manager lists and carries each document through the
// pipeline, recording every step as an event: Processing → sniff the type from the bytes → parse → chunk (token
// sized, following the structure) → embed in batches through the registry's embedding model → index the chunks
// (replacing the previous version's atomically, so search serves the old version until the new one is Ready) →
// Ready; or Failed with the reason. Unchanged content sent for re-processing is skipped (unless forced), and a
// deleted document's chunks and blobs are purged. Every outcome names the version it worked on, so a job that
// raced with newer content changes nothing; a job that crashed is simply picked up again.
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { ConflictError, PLATFORM_CONFIG, PlatformError, SYSTEM_ACTOR, type PlatformConfig } from '#kernel';
import { MESSAGE_BUS, type BusMessage, type Consumer, type Delivery, type MessageBus } from '#message-bus';
import { ProjectionRunner, ProjectionWaiter, ToDoListScanner } from '#eventsourcing';
import { CommandRunner, LOGGER } from '#platform';
import { READ_STORE, type ReadStore } from '#read-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { SEARCH_INDEX, type IndexedChunk, type SearchIndex } from '#search';
import { ModelGateway } from '#gateway';
import { embedInBatches, systemScope } from './system-calls.js';
import { KNOWLEDGE_DOCUMENTS, KNOWLEDGE_PROJECTION, type DocumentView } from './knowledge.read-model.js';
import { documentDecider, type DocumentCommand } from './document.decider.js';
import { documentStreamId, type DocumentState } from './document.events.js';
import {
  INGESTION_JOBS,
  INGESTION_PROCESS,
  TAG_SYNC_JOBS,
  type IngestionJobView,
  type TagSyncJobView,
} from './ingestion.process.js';
import { IngestionQueue, type IngestionJob } from './ingestion-queue.js';
import { IngestionError, prepareDocument, type ParseLimits } from './ingestion/index.js';

/** A chunk as the chunks route shows it: its text and where it sits in the extracted text. */
export interface DocumentChunk {
  readonly index: number;
  readonly sectionPath: readonly string[];
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The alias searches read; a rebuild fills a new index beside it and switches the alias. */
export const LIVE_INDEX_ALIAS = 'knowledge';
export const FIRST_INDEX = 'chunks_v1';
/** Points at the index a re-index is filling; live ingestion writes there too. */
export const BUILDING_INDEX_ALIAS = 'knowledge_building';

/** chunks_v1 → chunks_v2 (the first index when there is none). */
export const nextIndexName = (live: string | null): string => {
  const version = live ? Number(/_v(\d+)$/.exec(live)?.[1] ?? 1) : 0;
  return `chunks_v${version + 1}`;
};
const MAX_ATTEMPTS = 3;
const SCAN_INTERVAL_MS = 2_000;
const QUEUE_CONCURRENCY = 2;
/** Scaled out: the topic of ingestion jobs, and the consumer group every worker joins to share them. */
export const INGESTION_TOPIC = 'knowledge.ingestion-jobs';
export const INGESTION_GROUP = 'knowledge-ingestion';
const HEARTBEAT_MS = 2_000;
const REPUBLISH_AFTER_MS = 5 * 60_000;

@Injectable()
export class IngestionWorker implements BeforeApplicationShutdown {
  private readonly queue: IngestionQueue;
  private readonly scanner: ToDoListScanner;
  private reindexing = false;
  /** Scaled out over Kafka: the scanner publishes the jobs and every worker's consumer takes its share. */
  private readonly distributed: boolean;
  private consumer: Promise<Consumer> | null = null;
  private consuming = false;
  /** The topic's partitions this process's consumer holds now. */
  private partitions: number[] = [];
  private assignedAt: string | null = null;
  private stopping = false;
  /** Jobs this scanner published, by document: the version, and when (a job still listed long after goes again). */
  private readonly published = new Map<string, { version: number; at: number }>();
  private readonly counts = { received: 0, worked: 0 };

  private readonly parseLimits: Partial<ParseLimits>;

  constructor(
    private readonly commands: CommandRunner,
    runner: ProjectionRunner,
    private readonly waiter: ProjectionWaiter,
    private readonly gateway: ModelGateway,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.distributed = config.messageBus === 'kafka';
    this.parseLimits = { maxMemoryMb: config.parseMemoryMb, timeoutMs: config.parseTimeoutMs };
    this.scanner = new ToDoListScanner(
      runner,
      INGESTION_PROCESS,
      () => this.scan(),
      (error) => this.logger.error({ err: error }, 'ingestion scan failed'),
      SCAN_INTERVAL_MS,
    );
    this.queue = new IngestionQueue(
      async (job) => {
        await this.process(job);
        this.counts.worked += 1;
      },
      (job, error) => this.giveUp(job, error),
      { concurrency: QUEUE_CONCURRENCY, attempts: MAX_ATTEMPTS, backoffMs: 500 },
    );
  }

  /**
   * Starts working through the jobs (the process that runs the projections calls it, after starting them; the CLI
   * does not, and uses `reindex` only).
   */
  start(): void {
    if (this.distributed) this.startConsumer(1);
    this.scanner.start();
  }

  /** Joins the workers' consumer group; a failed join is tried again with backoff (capped at 30 s). */
  private startConsumer(attempt: number): void {
    if (this.stopping) return;
    this.consumer = this.bus.consume({
      topic: INGESTION_TOPIC,
      group: INGESTION_GROUP,
      concurrency: QUEUE_CONCURRENCY,
      handle: (message, delivery) => this.receive(message, delivery),
      onAssigned: (partitions) => {
        this.partitions = [...partitions];
        this.assignedAt = new Date().toISOString();
      },
    });
    this.consumer.then(
      () => (this.consuming = true),
      (error: unknown) => {
        this.logger[attempt >= 5 ? 'error' : 'warn'](
          { err: error, attempt },
          'ingestion jobs consumer could not join its group; trying again',
        );
        setTimeout(() => this.startConsumer(attempt + 1), Math.min(30_000, 250 * 2 ** attempt)).unref();
      },
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.scanner.stop();
    // Messages still held go back to the group uncommitted; the queue then finishes what it runs.
    await this.consumer?.then((consumer) => consumer.stop()).catch(() => undefined);
    await this.queue.close();
  }

  /** What this process does for ingestion (the worker's /health shows it). */
  stats() {
    return {
      distributed: this.distributed,
      consuming: this.consuming,
      partitions: this.partitions,
      assignedAt: this.assignedAt,
      jobsReceived: this.counts.received,
      jobsWorked: this.counts.worked,
      queued: this.queue.size,
    };
  }

  /** A job from the bus: worked through here before the message is acknowledged, heartbeating meanwhile. */
  private async receive(message: BusMessage, delivery: Delivery): Promise<void> {
    const job = message.value as Partial<IngestionJob> | null;
    if (
      typeof job?.documentId !== 'string' ||
      typeof job.version !== 'number' ||
      typeof job.force !== 'boolean'
    ) {
      this.logger.warn({ id: message.id, type: message.type }, 'ingestion job message ignored: not a job');
      return;
    }
    this.counts.received += 1;
    const beat = setInterval(() => void delivery.heartbeat().catch(() => undefined), HEARTBEAT_MS);
    try {
      await this.queue.offer({ documentId: job.documentId, version: job.version, force: job.force });
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * Embedded, the listed jobs go to this process's queue (it ignores what it already holds at that version).
   * Scaled out, they are published keyed by document, each version once (again if still listed after a while: its
   * message was lost or given up); the log-backed list stays the truth either way.
   */
  private async dispatch(jobs: readonly IngestionJob[]): Promise<void> {
    if (!this.distributed) {
      for (const job of jobs) void this.queue.offer(job);
      return;
    }
    const now = Date.now();
    const listed = new Set(jobs.map((job) => job.documentId));
    for (const documentId of this.published.keys())
      if (!listed.has(documentId)) this.published.delete(documentId);
    const due = jobs.filter((job) => {
      const sent = this.published.get(job.documentId);
      return !sent || sent.version !== job.version || now - sent.at > REPUBLISH_AFTER_MS;
    });
    if (due.length === 0) return;
    await this.bus.publish(
      INGESTION_TOPIC,
      due.map((job) => ({
        key: job.documentId,
        id: `${job.documentId}:${job.version}:${now}`,
        type: 'KnowledgeIngestionJob',
        value: job,
      })),
    );
    for (const job of due) this.published.set(job.documentId, { version: job.version, at: now });
  }

  /** Resolves once every listed job has been worked through (tests, CLI). */
  async idle(): Promise<void> {
    await this.scanner.settled();
    await this.queue.drained();
  }

  /** Offers every listed job to the queue (it ignores what it already holds at that version). */
  /** One pass over the to-do list: jobs to dispatch, tags to give the index. */
  private async scan(): Promise<void> {
    const page = await this.readStore
      .reader<IngestionJobView>(INGESTION_JOBS)
      .find({}, { sort: { field: 'queuedAt' }, limit: 500 });
    await this.dispatch(
      page.data.map((job) => ({
        documentId: job.id,
        version: job.purge ? 0 : job.version,
        force: job.force,
      })),
    );
    const retags = await this.readStore.reader<TagSyncJobView>(TAG_SYNC_JOBS).find({}, { limit: 500 });
    for (const job of retags.data) await this.syncTags(job.id);
  }

  private async process(job: IngestionJob): Promise<void> {
    const { state } = await this.commands.load(documentStreamId(job.documentId), documentDecider);
    if (state.status === 'deleted') return this.purge(job.documentId, state);
    if (state.status === 'absent' || state.version !== job.version) return;
    if (state.status === 'Ready' || state.status === 'Failed') return;
    if (!job.force && state.readyContentHash === state.content.contentHash) {
      await this.run({ type: 'SkipProcessing', documentId: job.documentId, version: job.version });
      return;
    }
    const started = await this.run({
      type: 'StartProcessing',
      documentId: job.documentId,
      version: job.version,
    });
    if (started === 0) return;
    const current = await this.commands.load(documentStreamId(job.documentId), documentDecider);
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

  private async ingest(
    job: IngestionJob,
    state: Extract<DocumentState, { content: unknown }>,
  ): Promise<void> {
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
    const indexes = await this.targetIndexes(prepared.dimensions);
    for (const index of indexes)
      await this.search.upsertDocument(index, job.documentId, job.version, prepared.chunks);
    // Tags changed while this version was processed: the index takes the current ones.
    const now = await this.commands.load(documentStreamId(job.documentId), documentDecider);
    if ('tagIds' in now.state && now.state.tagIds.join() !== state.tagIds.join())
      for (const index of indexes) await this.search.setDocumentTags(index, job.documentId, now.state.tagIds);
    await this.run({
      type: 'CompleteProcessing',
      documentId: job.documentId,
      version: job.version,
      mimeType: prepared.mimeType,
      textBlobId: text.id,
      chunkCount: prepared.chunks.length,
      chunksBlobId: chunksBlob.id,
    });
  }

  /**
   * The indexable chunks of one version of a document, from its stored bytes: sniff, parse, chunk, embed. Throws an
   * IngestionError for a document that cannot be indexed (the reason it fails with).
   */
  private async prepare(
    documentId: string,
    version: number,
    state: Extract<DocumentState, { content: unknown }>,
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
  private embed(
    texts: readonly string[],
    agentId: string | null,
    correlationId: string,
  ): Promise<number[][]> {
    return embedInBatches(this.gateway, systemScope(agentId, correlationId), texts);
  }

  /**
   * Rebuilds the search index from the log's current state: a new index version is filled beside the live one
   * (with the embedding model's current dimensions) from every Ready document's stored content, while live
   * ingestion writes to both; then the alias switches and the old index is dropped. Searches keep working
   * throughout. Resolves with what was built.
   */
  async reindex(
    onProgress: (done: number, total: number) => void = () => undefined,
  ): Promise<{ from: string | null; to: string; documents: number; chunks: number }> {
    if (this.reindexing) throw new ConflictError('reindex_running', 'a re-index is already running');
    this.reindexing = true;
    try {
      const from = await this.search.liveIndex(LIVE_INDEX_ALIAS);
      const to = nextIndexName(from);
      const dimensions = (await this.embed(['dimension probe'], null, 'reindex'))[0]!.length;
      await this.search.ensureIndex(to, { dimensions });
      await this.search.setLive(BUILDING_INDEX_ALIAS, to);
      const documents = this.readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS);
      const total = await documents.count({ status: 'Ready' });
      let done = 0;
      let chunks = 0;
      let cursor: string | null = null;
      do {
        const page = await documents.find(
          { status: 'Ready' },
          { sort: { field: 'createdAt' }, limit: 100, cursor },
        );
        for (const view of page.data) {
          const { state } = await this.commands.load(documentStreamId(view.id), documentDecider);
          if (state.status === 'Ready') {
            try {
              const prepared = await this.prepare(view.id, state.version, state);
              await this.search.upsertDocument(to, view.id, state.version, prepared.chunks);
              chunks += prepared.chunks.length;
            } catch (error) {
              if (!(error instanceof IngestionError)) throw error;
              this.logger.warn(
                { documentId: view.id, reason: error.reason },
                'document left out of the re-index',
              );
            }
          }
          onProgress(++done, total);
        }
        cursor = page.nextCursor;
      } while (cursor);
      await this.search.setLive(LIVE_INDEX_ALIAS, to);
      if (from && from !== to) {
        // Searches that looked the old index up a moment ago finish before it goes.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await this.search.dropIndex(from);
      }
      return { from, to, documents: done, chunks };
    } finally {
      this.reindexing = false;
    }
  }

  /** Where a new version's chunks go: the live index (created on first use) and a re-index being built. */
  private async targetIndexes(dimensions: number): Promise<string[]> {
    const live = await this.liveIndex(dimensions);
    const building = await this.search.liveIndex(BUILDING_INDEX_ALIAS);
    return building && building !== live ? [live, building] : [live];
  }

  /** Gives the index the document's tags as they are now, and records that it did. */
  private async syncTags(documentId: string): Promise<void> {
    const { state } = await this.commands.load(documentStreamId(documentId), documentDecider);
    if (state.status === 'absent' || state.status === 'deleted') return;
    for (const index of await this.existingIndexes())
      await this.search.setDocumentTags(index, documentId, state.tagIds);
    await this.run({ type: 'RecordTagsIndexed', documentId, tagIds: state.tagIds });
  }

  /** The live index and a re-index being built, those that exist. */
  private async existingIndexes(): Promise<string[]> {
    const live = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    const building = await this.search.liveIndex(BUILDING_INDEX_ALIAS);
    return [...new Set([live, building].filter((index): index is string => index !== null))];
  }

  /** The live index, created (with the embedding model's dimensions) and made live on first use. */
  private async liveIndex(dimensions: number): Promise<string> {
    const live = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    if (live) return live;
    await this.search.ensureIndex(FIRST_INDEX, { dimensions });
    await this.search.setLive(LIVE_INDEX_ALIAS, FIRST_INDEX);
    return FIRST_INDEX;
  }

  private async purge(
    documentId: string,
    state: Extract<DocumentState, { status: 'deleted' }>,
  ): Promise<void> {
    if (state.purged) return;
    for (const index of await this.existingIndexes()) await this.search.deleteDocument(index, documentId);
    // Content is stored once per content: a blob another live document still uses stays. The documents list is
    // read once it has caught up with the log, so a document just added with the same content counts (and an upload
    // racing with this purge puts its bytes back after its event is appended).
    await this.waiter.waitFor([KNOWLEDGE_PROJECTION], await this.commands.store.headPosition(), 5_000);
    const removed: string[] = [];
    for (const blobId of state.blobIds) {
      const users = await this.readStore
        .reader<DocumentView>(KNOWLEDGE_DOCUMENTS)
        .count({ blobId, id: { $ne: documentId } });
      if (users === 0 && (await this.blobs.delete(blobId))) removed.push(blobId);
    }
    await this.run({ type: 'RecordContentPurged', documentId, blobIds: removed });
  }

  private async fail(job: IngestionJob, reason: string, message: string): Promise<void> {
    this.logger.warn(
      { documentId: job.documentId, version: job.version, reason },
      'document failed ingestion',
    );
    await this.run({
      type: 'FailProcessing',
      documentId: job.documentId,
      version: job.version,
      reason,
      message,
    });
  }

  private async giveUp(job: IngestionJob, error: unknown): Promise<void> {
    this.logger.error({ err: error, documentId: job.documentId, version: job.version }, 'ingestion gave up');
    if (job.version === 0) return;
    // A platform error (the embedding model's upstream failing or timing out) says what went wrong; others are ours.
    if (error instanceof PlatformError)
      await this.fail(job, error.code, `processing failed ${MAX_ATTEMPTS} times: ${error.message}`);
    else await this.fail(job, 'internal_error', 'processing failed repeatedly; it has been logged');
  }

  /** Sends a document command as the platform (the decider makes repeats no-ops); returns the events appended. */
  private async run(command: DocumentCommand): Promise<number> {
    const result = await this.commands.run(documentStreamId(command.documentId), documentDecider, command, {
      actor: SYSTEM_ACTOR,
      correlationId: `ingestion:${command.documentId}`,
      causationId: null,
      now: () => new Date(),
    });
    return result.events.length;
  }
}
