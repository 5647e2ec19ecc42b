// Operators' view of the Knowledge search index (admin, extension): which index version is live, its size, and a
// re-index from the log (a new version built beside the live one, then switched to, searches working throughout).
import { Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import type { Logger } from 'pino';
import { CurrentCaller, type Caller, assertAdmin } from '#identity';
import { LOGGER } from '#platform';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import { BUILDING_INDEX_ALIAS, IngestionWorker, LIVE_INDEX_ALIAS } from '../ingestion.worker.js';
import { ApiRoute } from '#http';

interface ReindexState {
  running: boolean;
  done: number;
  total: number;
  startedAt: string | null;
  finishedAt: string | null;
  result: { from: string | null; to: string; documents: number; chunks: number } | null;
  error: string | null;
}

@Controller('api/v1/core/knowledge-index')
export class KnowledgeIndexController {
  private readonly reindex: ReindexState = {
    running: false,
    done: 0,
    total: 0,
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
  };

  constructor(
    private readonly worker: IngestionWorker,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The live search index, its size, and the progress of a re-index (admin, extension)',
    response: { status: 200, description: '`{ live, stats, building, reindex }`' },
    errors: [403],
  })
  @Get()
  async status(@CurrentCaller() caller: Caller) {
    assertAdmin(caller);
    const live = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    const building = await this.search.liveIndex(BUILDING_INDEX_ALIAS);
    return {
      live,
      stats: live ? await this.search.stats(live) : null,
      building: building && building !== live ? building : null,
      reindex: this.reindex,
    };
  }

  /** Starts a re-index and answers at once; GET shows its progress. */
  @ApiRoute({
    tag: 'Knowledge',
    summary:
      'Re-index every Ready document from its stored content into a new index version, then switch (admin)',
    description:
      'Use after the embedding model or its dimensions change. Searches keep working on the live index until the ' +
      'new one is complete; documents processed meanwhile go to both.',
    response: { status: 202, description: 'Started (or already running); GET shows progress' },
    errors: [403],
  })
  @Post('reindex')
  @HttpCode(202)
  async startReindex(@CurrentCaller() caller: Caller) {
    assertAdmin(caller);
    if (!this.reindex.running) {
      Object.assign(this.reindex, {
        running: true,
        done: 0,
        total: 0,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        error: null,
      });
      void this.worker
        .reindex((done, total) => Object.assign(this.reindex, { done, total }))
        .then((result) => Object.assign(this.reindex, { result }))
        .catch((error: unknown) => {
          this.logger.error({ err: error }, 'knowledge re-index failed');
          this.reindex.error = error instanceof Error ? error.message : 'failed';
        })
        .finally(() => Object.assign(this.reindex, { running: false, finishedAt: new Date().toISOString() }));
    }
    return { reindex: this.reindex };
  }
}
