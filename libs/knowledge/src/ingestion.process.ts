// Process manager of Knowledge ingestion: it turns the log into a durable to-do list. A document added, given new
// content, or sent for re-processing gets a job (its id and version); the job goes when that version (or a newer
// one) ends Ready, Failed or skipped; a deleted document gets a purge job (its chunks leave the search index). The
// list is this projector's own checkpointed collection, so a crash loses nothing: the ingestion worker reads it and
// picks up whatever is there, at start-up and whenever this projection moves.
import type { EventEnvelope } from '../../kernel/src/index.js';
import type { ProjectionContext, Projector } from '../../eventsourcing/src/projector.js';
import type { WriteOp } from '../../read-store/src/read-store.port.js';
import type { DocumentEvent } from './document.events.js';

export interface IngestionJobView {
  readonly id: string;
  readonly version: number;
  /** Re-process even when the content hash is unchanged. */
  readonly force: boolean;
  /** The document is gone: remove its chunks from the index. */
  readonly purge: boolean;
  readonly queuedAt: string;
}

export const INGESTION_JOBS = 'knowledge_ingestion_jobs';
export const INGESTION_PROCESS = 'knowledge-ingestion-process';

export const ingestionProcess: Projector = {
  name: INGESTION_PROCESS,
  version: 1,
  collections: [{ name: INGESTION_JOBS, indexes: [{ fields: ['queuedAt'] }] }],
  eventTypes: [
    'DocumentAdded',
    'DocumentContentReplaced',
    'DocumentReprocessingRequested',
    'DocumentReady',
    'DocumentFailed',
    'DocumentProcessingSkipped',
    'DocumentDeleted',
    'DocumentContentPurged',
  ],
  async project(envelope: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    const event = envelope as unknown as DocumentEvent;
    const id = event.data.documentId;
    const job = (version: number, force: boolean, purge = false): WriteOp[] => [
      {
        kind: 'upsert',
        collection: INGESTION_JOBS,
        doc: { id, version, force, purge, queuedAt: envelope.metadata.occurredAt },
      },
    ];
    switch (event.type) {
      case 'DocumentAdded':
        return job(1, false);
      case 'DocumentContentReplaced':
        return job(event.data.version, false);
      case 'DocumentReprocessingRequested':
        return job(event.data.version, event.data.force);
      case 'DocumentReady':
      case 'DocumentFailed':
      case 'DocumentProcessingSkipped': {
        const pending = await context.get<IngestionJobView>(INGESTION_JOBS, id);
        return pending && !pending.purge && pending.version <= event.data.version
          ? [{ kind: 'delete', collection: INGESTION_JOBS, id }]
          : [];
      }
      case 'DocumentDeleted':
        return job(0, false, true);
      case 'DocumentContentPurged':
        return [{ kind: 'delete', collection: INGESTION_JOBS, id }];
      default:
        return [];
    }
  },
};
