// GET /knowledge-index (admin, extension): which search index version is live, its size, a re-index's progress, and
// the embedded index's per-owner HNSW graphs (built or building, with progress).
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiRoute } from '#http';
import { assertAdmin, CurrentCaller, type Caller } from '#identity';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import { BUILDING_INDEX_ALIAS, LIVE_INDEX_ALIAS } from '../../pipeline/index-aliases.js';
import { Reindexer } from '../../pipeline/reindex.js';

@Controller('api/v1/core/knowledge-index')
export class GetKnowledgeIndexController {
  constructor(
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    private readonly reindexer: Reindexer,
  ) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'The live search index, its size, and the progress of a re-index (admin, extension)',
    response: { status: 200, description: '`{ live, stats, building, reindex, nearestNeighbours }`' },
    errors: [403],
  })
  @Get()
  async status(@CurrentCaller() caller: Caller) {
    assertAdmin(caller, 'knowledgeIndex.manage');
    const live = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    const building = await this.search.liveIndex(BUILDING_INDEX_ALIAS);
    return {
      live,
      stats: live ? await this.search.stats(live) : null,
      building: building && building !== live ? building : null,
      reindex: this.reindexer.state,
      nearestNeighbours: this.search.annProgress?.() ?? [],
    };
  }
}
