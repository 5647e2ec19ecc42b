// The ingestion worker dispatches jobs: it takes the ones the ingestion process manager lists (its checkpointed to-do
// list, so a crash loses nothing) and hands each to the document pipeline through a bounded queue, or, scaled out
// over Kafka, publishes them for the workers' consumer group to share. Tag jobs go to the tag sync. The pipeline
// (pipeline/document-pipeline.ts), the purge of deleted documents, re-indexing and the index aliases live beside it.
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { MESSAGE_BUS, type BusMessage, type Consumer, type Delivery, type MessageBus } from '#message-bus';
import { ProjectionRunner, ToDoListScanner } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import {
  INGESTION_JOBS,
  INGESTION_PROCESS,
  TAG_SYNC_JOBS,
  type IngestionJobView,
  type TagSyncJobView,
} from './ingestion.process.js';
import { IngestionQueue, type IngestionJob } from './ingestion-queue.js';
import { DocumentPipeline, MAX_ATTEMPTS } from './pipeline/document-pipeline.js';
import { Reindexer, type ReindexResult } from './pipeline/reindex.js';
import { TagSync } from './pipeline/tag-sync.js';

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

  constructor(
    runner: ProjectionRunner,
    private readonly pipeline: DocumentPipeline,
    private readonly tags: TagSync,
    private readonly reindexer: Reindexer,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.distributed = config.messageBus === 'kafka';
    this.scanner = new ToDoListScanner(
      runner,
      INGESTION_PROCESS,
      () => this.scan(),
      (error) => this.logger.error({ err: error }, 'ingestion scan failed'),
      SCAN_INTERVAL_MS,
    );
    this.queue = new IngestionQueue(
      async (job) => {
        await this.pipeline.process(job);
        this.counts.worked += 1;
      },
      (job, error) => this.pipeline.giveUp(job, error),
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
    for (const job of retags.data) await this.tags.sync(job.id);
  }

  /** Rebuilds the search index beside the live one, then switches to it (the CLI and the admin route ask). */
  reindex(onProgress?: (done: number, total: number) => void): Promise<ReindexResult> {
    return this.reindexer.reindex(onProgress);
  }
}
