// The Knowledge bounded context: documents at three levels, tags, the ingestion pipeline and search.
import { Module } from '@nestjs/common';
import { GatewayModule } from '#gateway';
import {
  DocumentCommandHandler,
  SummaryIndexCommandHandler,
  TagCommandHandler,
} from './knowledge.commands.js';
import { IngestionWorker } from './ingestion.worker.js';
import { KnowledgeController } from './http/knowledge.controller.js';
import { KnowledgeIndexController } from './http/knowledge-index.controller.js';
import { SummaryIndexController } from './http/summary-index.controller.js';
import { SummaryIndexWorker } from './summary/summary-index.worker.js';
import { SummarySearch } from './summary/summary-search.js';

@Module({
  imports: [GatewayModule],
  controllers: [KnowledgeController, KnowledgeIndexController, SummaryIndexController],
  providers: [
    DocumentCommandHandler,
    TagCommandHandler,
    SummaryIndexCommandHandler,
    IngestionWorker,
    SummaryIndexWorker,
    SummarySearch,
  ],
  exports: [IngestionWorker, SummaryIndexWorker],
})
export class KnowledgeModule {}
