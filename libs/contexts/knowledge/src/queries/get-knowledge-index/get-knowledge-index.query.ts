// The state of the knowledge index (admins): which search index version is live, its size, a re-index's progress,
// and the embedded index's per-owner HNSW graphs (built or building, with progress).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { AskedAtRoute, type Caller } from '#access';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import { BUILDING_INDEX_ALIAS, LIVE_INDEX_ALIAS } from '../../pipeline/index-aliases.js';
import { Reindexer } from '../../pipeline/reindex.js';

@AskedAtRoute("the route row asks knowledgeIndex.manage (admins): the index is the instance's, no resource's")
export class GetKnowledgeIndex extends Query<Record<string, unknown>> {
  constructor(readonly caller: Caller) {
    super();
  }
}

@QueryHandler(GetKnowledgeIndex)
export class GetKnowledgeIndexHandler implements IQueryHandler<GetKnowledgeIndex> {
  constructor(
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
    private readonly reindexer: Reindexer,
  ) {}

  async execute() {
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
