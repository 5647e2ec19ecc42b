// The Knowledge bounded context: documents at three levels, tags, the ingestion pipeline and search.
import { Module } from '@nestjs/common';
import { GatewayModule } from '../../gateway/src/gateway.module.js';
import { DocumentCommandHandler, TagCommandHandler } from './knowledge.commands.js';
import { IngestionWorker } from './ingestion.worker.js';
import { KnowledgeController } from './http/knowledge.controller.js';
import { KnowledgeIndexController } from './http/knowledge-index.controller.js';

@Module({
  imports: [GatewayModule],
  controllers: [KnowledgeController, KnowledgeIndexController],
  providers: [DocumentCommandHandler, TagCommandHandler, IngestionWorker],
  exports: [IngestionWorker],
})
export class KnowledgeModule {}
