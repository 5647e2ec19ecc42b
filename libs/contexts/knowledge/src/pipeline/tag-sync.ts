// Tags changed after a document was indexed: the index takes the document's tags as they are now, and that is
// recorded (the ingestion process's tag job is done once the index has the current tags).
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AggregateRepository } from '#eventsourcing';
import { SEARCH_INDEX, type SearchIndex } from '#search';
import {
  ingestionContext,
  RecordDocumentProcessing,
} from '../commands/record-document-processing/record-document-processing.command.js';
import { documentDecider } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import { IndexAliases } from './index-aliases.js';

@Injectable()
export class TagSync {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    private readonly indexes: IndexAliases,
    @Inject(SEARCH_INDEX) private readonly search: SearchIndex,
  ) {}

  async sync(documentId: string): Promise<void> {
    const { state } = await this.aggregates.load(documentStreamId(documentId), documentDecider);
    if (state.status === 'absent' || state.status === 'deleted') return;
    for (const index of await this.indexes.existing())
      await this.search.setDocumentTags(index, documentId, state.tagIds);
    await this.bus.execute(
      new RecordDocumentProcessing(
        { type: 'RecordTagsIndexed', documentId, tagIds: state.tagIds },
        ingestionContext(documentId),
      ),
    );
  }
}
