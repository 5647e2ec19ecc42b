// After a document's deletion: its chunks leave the search index and the blobs no other document uses are removed,
// then the purge is recorded (the log keeps who deleted what, never the content).
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { ProjectionWaiter } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import {
  ingestionContext,
  RecordDocumentProcessing,
} from '../commands/record-document-processing/record-document-processing.command.js';
import type { DocumentState } from '../document.events.js';
import { KNOWLEDGE_DOCUMENTS, KNOWLEDGE_PROJECTION, type DocumentView } from '../knowledge.read-model.js';
import { IndexAliases } from './index-aliases.js';

@Injectable()
export class ContentPurge {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    private readonly waiter: ProjectionWaiter,
    private readonly indexes: IndexAliases,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
  ) {}

  async purge(documentId: string, state: Extract<DocumentState, { status: 'deleted' }>): Promise<void> {
    if (state.purged) return;
    for (const index of await this.indexes.existing()) await this.search.deleteDocument(index, documentId);
    // Content is stored once per content: a blob another live document still uses stays. The documents list is
    // read once it has caught up with the log, so a document just added with the same content counts (and an upload
    // racing with this purge puts its bytes back after its event is appended).
    await this.waiter.waitFor([KNOWLEDGE_PROJECTION], await this.aggregates.store.headPosition(), 5_000);
    const removed: string[] = [];
    for (const blobId of state.blobIds) {
      const users = await this.readStore
        .reader<DocumentView>(KNOWLEDGE_DOCUMENTS)
        .count({ blobId, id: { $ne: documentId } });
      if (users === 0 && (await this.blobs.delete(blobId))) removed.push(blobId);
    }
    await this.bus.execute(
      new RecordDocumentProcessing(
        { type: 'RecordContentPurged', documentId, blobIds: removed },
        ingestionContext(documentId),
      ),
    );
  }
}
