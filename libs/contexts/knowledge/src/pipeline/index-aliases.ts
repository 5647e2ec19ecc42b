// The search index's names: the alias searches read, and the one a re-index fills beside it. New chunks go to both.
import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_INDEX, type SearchIndex } from '#search';

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

@Injectable()
export class IndexAliases {
  constructor(@Inject(SEARCH_INDEX) private readonly search: SearchIndex) {}

  /** Where a new version's chunks go: the live index (created on first use) and a re-index being built. */
  async targets(dimensions: number): Promise<string[]> {
    const live = await this.live(dimensions);
    const building = await this.search.liveIndex(BUILDING_INDEX_ALIAS);
    return building && building !== live ? [live, building] : [live];
  }

  /** The live index and a re-index being built, those that exist. */
  async existing(): Promise<string[]> {
    const live = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    const building = await this.search.liveIndex(BUILDING_INDEX_ALIAS);
    return [...new Set([live, building].filter((index): index is string => index !== null))];
  }

  /** The live index, created (with the embedding model's dimensions) and made live on first use. */
  private async live(dimensions: number): Promise<string> {
    const live = await this.search.liveIndex(LIVE_INDEX_ALIAS);
    if (live) return live;
    await this.search.ensureIndex(FIRST_INDEX, { dimensions });
    await this.search.setLive(LIVE_INDEX_ALIAS, FIRST_INDEX);
    return FIRST_INDEX;
  }
}
