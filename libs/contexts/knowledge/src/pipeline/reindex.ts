// Rebuilds the search index from the log's current state: a new index version is filled beside the live one (with
// the embedding model's current dimensions) from every Ready document's stored content, while live ingestion writes
// to both; then the alias switches and the old index is dropped. Searches keep working throughout.
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { ConflictError, LOGGER } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import { documentDecider } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import { IngestionError } from '../ingestion/index.js';
import { KNOWLEDGE_DOCUMENTS, type DocumentView } from '../knowledge.read-model.js';
import { DocumentPipeline } from './document-pipeline.js';
import { BUILDING_INDEX_ALIAS, LIVE_INDEX_ALIAS, nextIndexName } from './index-aliases.js';

/** A re-index started over HTTP, as GET /knowledge-index shows it. */
export interface ReindexState {
  running: boolean;
  done: number;
  total: number;
  startedAt: string | null;
  finishedAt: string | null;
  result: ReindexResult | null;
  error: string | null;
}

export interface ReindexResult {
  readonly from: string | null;
  readonly to: string;
  readonly documents: number;
  readonly chunks: number;
}

@Injectable()
export class Reindexer {
  private running = false;
  /** The last re-index started in the background (`start`). */
  readonly state: ReindexState = {
    running: false,
    done: 0,
    total: 0,
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
  };

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly pipeline: DocumentPipeline,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts a re-index in the background unless one runs; its progress is in `state`. */
  start(): ReindexState {
    if (!this.state.running) {
      Object.assign(this.state, {
        running: true,
        done: 0,
        total: 0,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        error: null,
      });
      void this.reindex((done, total) => Object.assign(this.state, { done, total }))
        .then((result) => Object.assign(this.state, { result }))
        .catch((error: unknown) => {
          this.logger.error({ err: error }, 'knowledge re-index failed');
          this.state.error = error instanceof Error ? error.message : 'failed';
        })
        .finally(() => Object.assign(this.state, { running: false, finishedAt: new Date().toISOString() }));
    }
    return this.state;
  }

  /** Resolves with what was built; 409 `reindex_running` while another runs in this process. */
  async reindex(onProgress: (done: number, total: number) => void = () => undefined): Promise<ReindexResult> {
    if (this.running) throw new ConflictError('reindex_running', 'a re-index is already running');
    this.running = true;
    try {
      const from = await this.search.liveIndex(LIVE_INDEX_ALIAS);
      const to = nextIndexName(from);
      const dimensions = (await this.pipeline.embed(['dimension probe'], null, 'reindex'))[0]!.length;
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
          const { state } = await this.aggregates.load(documentStreamId(view.id), documentDecider);
          if (state.status === 'Ready') {
            try {
              const prepared = await this.pipeline.prepare(view.id, state.version, state);
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
      this.running = false;
    }
  }
}
