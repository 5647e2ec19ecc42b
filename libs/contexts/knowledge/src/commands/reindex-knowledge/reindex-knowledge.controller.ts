// POST /knowledge-index/reindex (admin, extension): starts a re-index from the log and answers at once (a new index
// version built beside the live one, then switched to, searches working throughout); GET shows its progress.
import { Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { Reindexer } from '../../pipeline/reindex.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge-index')
export class ReindexKnowledgeController {
  constructor(private readonly reindexer: Reindexer) {}

  @ApiRoute({
    tag: 'Knowledge',
    idempotent: true,
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
  startReindex() {
    return { reindex: this.reindexer.start() };
  }
}
