// Process manager of Knowledge ingestion: it turns the log into a durable to-do list. A document added, given new
// content, or sent for re-processing gets a job (its id and version); the job goes when that version (or a newer
// one) ends Ready, Failed or skipped; a deleted document gets a purge job (its chunks leave the search index). The
// list is this projector's own checkpointed collection, so a crash loses nothing: the ingestion worker reads it and
// picks up whatever is there, at start-up and whenever this projection moves. Tag changes get a job of their own
// (the index's copy of the tags is replaced), done when the index has taken the tags as they are now.
import { eventHandlers, type EnvelopeOf, type ProjectionContext, type Projector } from '#eventsourcing';
import type { WriteOp } from '#read-store';
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
/** Documents whose tags changed since the index last took them: `{ id, tagIds }` (the tags now). */
export const TAG_SYNC_JOBS = 'knowledge_tag_sync_jobs';
const DOCUMENT_TAGS = 'knowledge_ingestion_document_tags';

export interface TagSyncJobView {
  readonly id: string;
  readonly tagIds: readonly string[];
}

const sameTags = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((tagId) => b.includes(tagId));
export const INGESTION_PROCESS = 'knowledge-ingestion-process';

async function handle(event: EnvelopeOf<DocumentEvent>, context: ProjectionContext): Promise<WriteOp[]> {
  const id = event.data.documentId;
  const job = (version: number, force: boolean, purge = false): WriteOp[] => [
    {
      kind: 'upsert',
      collection: INGESTION_JOBS,
      doc: { id, version, force, purge, queuedAt: event.metadata.occurredAt },
    },
  ];
  const tagsNow = async () => (await context.get<TagSyncJobView>(DOCUMENT_TAGS, id))?.tagIds ?? [];
  const retag = (tagIds: readonly string[]): WriteOp[] => [
    { kind: 'upsert', collection: DOCUMENT_TAGS, doc: { id, tagIds: [...tagIds] } },
    { kind: 'upsert', collection: TAG_SYNC_JOBS, doc: { id, tagIds: [...tagIds] } },
  ];
  switch (event.type) {
    case 'DocumentAdded':
      return [
        ...job(1, false),
        { kind: 'upsert', collection: DOCUMENT_TAGS, doc: { id, tagIds: [...event.data.tagIds] } },
      ];
    case 'DocumentTagAttached':
      return retag([...(await tagsNow()).filter((tagId) => tagId !== event.data.tagId), event.data.tagId]);
    case 'DocumentTagDetached':
      return retag((await tagsNow()).filter((tagId) => tagId !== event.data.tagId));
    case 'DocumentTagsIndexed': {
      // Done only when the index took the tags as they are now (a change since keeps the job).
      const pending = await context.get<TagSyncJobView>(TAG_SYNC_JOBS, id);
      return pending && sameTags(pending.tagIds, event.data.tagIds)
        ? [{ kind: 'delete', collection: TAG_SYNC_JOBS, id }]
        : [];
    }
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
      return [
        ...job(0, false, true),
        { kind: 'delete', collection: TAG_SYNC_JOBS, id },
        { kind: 'delete', collection: DOCUMENT_TAGS, id },
      ];
    case 'DocumentContentPurged':
      return [{ kind: 'delete', collection: INGESTION_JOBS, id }];
    default:
      return [];
  }
}

export const ingestionProcess: Projector = {
  name: INGESTION_PROCESS,
  version: 1,
  collections: [
    { name: INGESTION_JOBS, indexes: [{ fields: ['queuedAt'] }] },
    { name: TAG_SYNC_JOBS },
    { name: DOCUMENT_TAGS },
  ],
  ...eventHandlers<DocumentEvent>({
    DocumentAdded: handle,
    DocumentContentReplaced: handle,
    DocumentReprocessingRequested: handle,
    DocumentReady: handle,
    DocumentFailed: handle,
    DocumentProcessingSkipped: handle,
    DocumentDeleted: handle,
    DocumentContentPurged: handle,
    DocumentTagAttached: handle,
    DocumentTagDetached: handle,
    DocumentTagsIndexed: handle,
    DocumentRenamed: null,
    DocumentProcessingStarted: null,
  }),
};
