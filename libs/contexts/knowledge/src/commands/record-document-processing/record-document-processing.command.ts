// What the ingestion pipeline records about a document, as the platform: processing started, skipped, Ready or
// Failed (each naming the version it worked on, so a superseded outcome changes nothing), tags indexed, content
// purged. The decider makes repeats no-ops; the answer says how many events were appended. No principal: only the
// platform's workers send it (no route does).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AskedAtRoute } from '#access';
import { SYSTEM_ACTOR } from '#kernel';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
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

/** The context of the pipeline's records: the platform, correlated by document. */
export const ingestionContext = (documentId: string): CommandContext => ({
  actor: SYSTEM_ACTOR,
  correlationId: `ingestion:${documentId}`,
  causationId: null,
  now: () => new Date(),
});

@AskedAtRoute('no route sends it: only the ingestion pipeline, as the platform, in-process')
export class RecordDocumentProcessing extends Command<{ readonly appended: number }> {
  constructor(
    readonly record: ProcessingRecord,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordDocumentProcessing)
export class RecordDocumentProcessingHandler implements ICommandHandler<RecordDocumentProcessing> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ record, context }: RecordDocumentProcessing) {
    const result = await this.aggregates.decide(
      documentStreamId(record.documentId),
      documentDecider,
      record,
      context,
    );
    return { appended: result.events.length };
  }
}
