// The Knowledge bounded context: documents at three levels, tags, and (later) ingestion and search.
import { Module } from '@nestjs/common';
import { DocumentCommandHandler, TagCommandHandler } from './knowledge.commands.js';
import { KnowledgeController } from './http/knowledge.controller.js';

@Module({ controllers: [KnowledgeController], providers: [DocumentCommandHandler, TagCommandHandler] })
export class KnowledgeModule {}
