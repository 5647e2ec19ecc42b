// What the ingestion pipeline records about a document, as the platform: processing started, skipped, Ready or
// Failed (each naming the version it worked on, so a superseded outcome changes nothing), tags indexed, content
// purged. The decider makes repeats no-ops; the answer says how many events were appended.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SYSTEM_ACTOR } from '#kernel';
import { AggregateRepository } from '#eventsourcing';
import { documentDecider, type DocumentCommand } from '../../document.decider.js';
import { documentStreamId } from '../../document.events.js';

export type ProcessingRecord = Extract<
  DocumentCommand,
  {
    type:
      | 'StartProcessing'
      | 'CompleteProcessing'
      | 'SkipProcessing'
      | 'FailProcessing'
      | 'RecordTagsIndexed'
      | 'RecordContentPurged';
  }
>;

export class RecordDocumentProcessing extends Command<{ readonly appended: number }> {
  constructor(readonly record: ProcessingRecord) {
    super();
  }
}

@CommandHandler(RecordDocumentProcessing)
export class RecordDocumentProcessingHandler implements ICommandHandler<RecordDocumentProcessing> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ record }: RecordDocumentProcessing) {
    const result = await this.aggregates.decide(
      documentStreamId(record.documentId),
      documentDecider,
      record,
      {
        actor: SYSTEM_ACTOR,
        correlationId: `ingestion:${record.documentId}`,
        causationId: null,
        now: () => new Date(),
      },
    );
    return { appended: result.events.length };
  }
}
