// The Knowledge bounded context: documents at three levels, tags, the ingestion pipeline, search and the section
// summaries, as command and query slices; the ingestion and summary workers; what the gate asks of them (KnowledgeResolver).
import { Module } from '@nestjs/common';
import { ModelGatewayModule } from '#model-gateway';
import { AddDocumentController } from './commands/add-document/add-document.controller.js';
import { AddDocumentHandler, AddReadDocumentHandler } from './commands/add-document/add-document.command.js';
import { AttachDocumentTagController } from './commands/attach-document-tag/attach-document-tag.controller.js';
import { AttachDocumentTagHandler } from './commands/attach-document-tag/attach-document-tag.command.js';
import { BulkDocumentsController } from './commands/bulk-documents/bulk-documents.controller.js';
import { BulkDocumentsHandler } from './commands/bulk-documents/bulk-documents.command.js';
import { CancelSummaryBuildController } from './commands/cancel-summary-build/cancel-summary-build.controller.js';
import { CancelSummaryBuildHandler } from './commands/cancel-summary-build/cancel-summary-build.command.js';
import { ChangeDocumentController } from './commands/change-document/change-document.controller.js';
import { ChangeDocumentHandler } from './commands/change-document/change-document.command.js';
import { ChangeTagController } from './commands/change-tag/change-tag.controller.js';
import { ChangeTagHandler } from './commands/change-tag/change-tag.command.js';
import { CreateTagController } from './commands/create-tag/create-tag.controller.js';
import { CreateTagHandler } from './commands/create-tag/create-tag.command.js';
import { DeleteDocumentController } from './commands/delete-document/delete-document.controller.js';
import { DeleteDocumentHandler } from './commands/delete-document/delete-document.command.js';
import { DeleteTagController } from './commands/delete-tag/delete-tag.controller.js';
import { DeleteTagHandler } from './commands/delete-tag/delete-tag.command.js';
import { DetachDocumentTagController } from './commands/detach-document-tag/detach-document-tag.controller.js';
import { DetachDocumentTagHandler } from './commands/detach-document-tag/detach-document-tag.command.js';
import { RecordDocumentProcessingHandler } from './commands/record-document-processing/record-document-processing.command.js';
import { RecordSummaryBuildHandler } from './commands/record-summary-build/record-summary-build.command.js';
import { ReindexKnowledgeController } from './commands/reindex-knowledge/reindex-knowledge.controller.js';
import { ReprocessDocumentHandler } from './commands/reprocess-document/reprocess-document.command.js';
import { RequestSummaryBuildController } from './commands/request-summary-build/request-summary-build.controller.js';
import { RequestSummaryBuildHandler } from './commands/request-summary-build/request-summary-build.command.js';
import { DocumentBytes } from './document-bytes.js';
import { IngestionWorker } from './ingestion.worker.js';
import { KnowledgeReads } from './knowledge-reads.js';
import { KnowledgeResolver } from './knowledge-resolver.js';
import { DocumentPipeline } from './pipeline/document-pipeline.js';
import { IndexAliases } from './pipeline/index-aliases.js';
import { ContentPurge } from './pipeline/purge.js';
import { Reindexer } from './pipeline/reindex.js';
import { TagSync } from './pipeline/tag-sync.js';
import { DownloadDocumentController } from './queries/download-document/download-document.controller.js';
import { DownloadDocumentHandler } from './queries/download-document/download-document.query.js';
import { DownloadDocumentsController } from './queries/download-documents/download-documents.controller.js';
import { DownloadDocumentsHandler } from './queries/download-documents/download-documents.query.js';
import { GetDocumentController } from './queries/get-document/get-document.controller.js';
import { GetDocumentHandler } from './queries/get-document/get-document.query.js';
import {
  GetDocumentAsOfHandler,
  ListDocumentsAsOfHandler,
} from './queries/knowledge-as-of/knowledge-as-of.query.js';
import { GetDocumentChunksController } from './queries/get-document-chunks/get-document-chunks.controller.js';
import { GetDocumentChunksHandler } from './queries/get-document-chunks/get-document-chunks.query.js';
import { GetDocumentLogController } from './queries/get-document-log/get-document-log.controller.js';
import { GetDocumentLogHandler } from './queries/get-document-log/get-document-log.query.js';
import { GetDocumentTextController } from './queries/get-document-text/get-document-text.controller.js';
import { GetDocumentTextHandler } from './queries/get-document-text/get-document-text.query.js';
import { GetKnowledgeIndexController } from './queries/get-knowledge-index/get-knowledge-index.controller.js';
import { GetKnowledgeIndexHandler } from './queries/get-knowledge-index/get-knowledge-index.query.js';
import { GetSummaryIndexController } from './queries/get-summary-index/get-summary-index.controller.js';
import { GetSummaryIndexHandler } from './queries/get-summary-index/get-summary-index.query.js';
import { GetSummaryTreeController } from './queries/get-summary-tree/get-summary-tree.controller.js';
import { GetSummaryTreeHandler } from './queries/get-summary-tree/get-summary-tree.query.js';
import { GetTagHandler } from './queries/get-tag/get-tag.query.js';
import { ListDocumentsController } from './queries/list-documents/list-documents.controller.js';
import { ListDocumentsHandler } from './queries/list-documents/list-documents.query.js';
import { ListTagsController } from './queries/list-tags/list-tags.controller.js';
import { ListTagsHandler } from './queries/list-tags/list-tags.query.js';
import { SearchKnowledgeController } from './queries/search-knowledge/search-knowledge.controller.js';
import {
  KnowledgeSearch,
  SearchKnowledgeHandler,
  SearchKnowledgeInTurnHandler,
} from './queries/search-knowledge/search-knowledge.query.js';
import { SummaryIndexWorker } from './summary/summary-index.worker.js';
import { SummarySearch } from './summary/summary-search.js';

export const KNOWLEDGE_CONTROLLERS = [
  ListDocumentsController,
  AddDocumentController,
  BulkDocumentsController,
  DownloadDocumentsController,
  GetDocumentController,
  GetDocumentLogController,
  GetDocumentTextController,
  GetDocumentChunksController,
  DownloadDocumentController,
  ChangeDocumentController,
  DeleteDocumentController,
  AttachDocumentTagController,
  DetachDocumentTagController,
  SearchKnowledgeController,
  ListTagsController,
  CreateTagController,
  ChangeTagController,
  DeleteTagController,
  GetKnowledgeIndexController,
  ReindexKnowledgeController,
  GetSummaryIndexController,
  RequestSummaryBuildController,
  CancelSummaryBuildController,
  GetSummaryTreeController,
];

export const KNOWLEDGE_COMMAND_HANDLERS = [
  AddDocumentHandler,
  AddReadDocumentHandler,
  ChangeDocumentHandler,
  DeleteDocumentHandler,
  AttachDocumentTagHandler,
  DetachDocumentTagHandler,
  ReprocessDocumentHandler,
  BulkDocumentsHandler,
  CreateTagHandler,
  ChangeTagHandler,
  DeleteTagHandler,
  RequestSummaryBuildHandler,
  CancelSummaryBuildHandler,
  RecordDocumentProcessingHandler,
  RecordSummaryBuildHandler,
];

export const KNOWLEDGE_QUERY_HANDLERS = [
  ListDocumentsHandler,
  GetKnowledgeIndexHandler,
  GetDocumentHandler,
  ListDocumentsAsOfHandler,
  GetDocumentAsOfHandler,
  GetDocumentLogHandler,
  GetDocumentTextHandler,
  GetDocumentChunksHandler,
  DownloadDocumentHandler,
  DownloadDocumentsHandler,
  SearchKnowledgeHandler,
  SearchKnowledgeInTurnHandler,
  ListTagsHandler,
  GetTagHandler,
  GetSummaryIndexHandler,
  GetSummaryTreeHandler,
];

@Module({
  imports: [ModelGatewayModule],
  controllers: KNOWLEDGE_CONTROLLERS,
  providers: [
    ...KNOWLEDGE_COMMAND_HANDLERS,
    ...KNOWLEDGE_QUERY_HANDLERS,
    KnowledgeReads,
    KnowledgeResolver,
    KnowledgeSearch,
    DocumentBytes,
    IndexAliases,
    DocumentPipeline,
    ContentPurge,
    TagSync,
    Reindexer,
    IngestionWorker,
    SummaryIndexWorker,
    SummarySearch,
  ],
  exports: [IngestionWorker, SummaryIndexWorker],
})
export class KnowledgeModule {}
