// Which blobs the log still references, folded from the whole log (the truth, whatever the read models say), so a
// sweep can remove the rest: bytes put by a writer that crashed before appending the event naming them.
//   - A document references every blob its events name (each content version, each extracted text and chunk list)
//     while it lives, and after its deletion until its content is purged; then nothing. Content addressing shares
//     ids between documents, so each document is folded on its own and the sets are united.
//   - A summary index references the tree serving searches, until the index is deleted.
import type { EventEnvelope } from '#kernel';
import type { EventStore } from '#event-store';
import { DOCUMENT_EVENT_TYPES, type DocumentEvent } from './document.events.js';
import {
  evolveSummaryIndex,
  initialSummaryIndexState,
  SUMMARY_INDEX_EVENT_TYPES,
  type SummaryIndexEvent,
  type SummaryIndexState,
} from './summary/summary-index.events.js';

const PAGE = 1000;

/** What one document references: the blobs its events named, none once its content was purged. */
interface DocumentBlobs {
  readonly blobIds: ReadonlySet<string>;
  readonly purged: boolean;
}

const NO_DOCUMENT_BLOBS: DocumentBlobs = { blobIds: new Set(), purged: false };

const documentTypes = new Set<string>(DOCUMENT_EVENT_TYPES);
const summaryIndexTypes = new Set<string>(SUMMARY_INDEX_EVENT_TYPES);

/** Reads the whole log, page by page, and returns every blob id something in it still references. */
export async function referencedBlobIds(store: EventStore, pageSize = PAGE): Promise<Set<string>> {
  const documents = new Map<string, DocumentBlobs>();
  const summaryIndexes = new Map<string, SummaryIndexState>();
  let after: number | undefined;
  for (;;) {
    const page = await store.readAll({ after, maxCount: pageSize });
    if (page.length === 0) break;
    for (const event of page) {
      if (documentTypes.has(event.type)) {
        const { documentId } = (event as EventEnvelope & DocumentEvent).data;
        const state = documents.get(documentId) ?? NO_DOCUMENT_BLOBS;
        documents.set(documentId, evolveDocumentBlobs(state, event as EventEnvelope & DocumentEvent));
      } else if (summaryIndexTypes.has(event.type)) {
        const { agentId } = (event as EventEnvelope & SummaryIndexEvent).data;
        const state = summaryIndexes.get(agentId) ?? initialSummaryIndexState();
        summaryIndexes.set(agentId, evolveSummaryIndex(state, event as EventEnvelope & SummaryIndexEvent));
      }
    }
    after = page[page.length - 1]!.position;
  }

  const referenced = new Set<string>();
  for (const document of documents.values())
    if (!document.purged) for (const blobId of document.blobIds) referenced.add(blobId);
  // A deleted index has no serving tree any more (evolve clears it).
  for (const index of summaryIndexes.values()) if (index.serving) referenced.add(index.serving.treeBlobId);
  return referenced;
}

const naming = (state: DocumentBlobs, ...blobIds: string[]): DocumentBlobs => ({
  ...state,
  blobIds: new Set([...state.blobIds, ...blobIds]),
});

function evolveDocumentBlobs(state: DocumentBlobs, event: DocumentEvent): DocumentBlobs {
  // The decider accepts nothing after a purge; should an event come anyway, the purged content stays unreferenced.
  if (state.purged) return state;
  switch (event.type) {
    case 'DocumentAdded':
    case 'DocumentContentReplaced':
      return naming(state, event.data.content.blobId);
    case 'DocumentReady':
      return naming(
        state,
        event.data.textBlobId,
        ...(event.data.chunksBlobId ? [event.data.chunksBlobId] : []),
      );
    case 'DocumentContentPurged':
      return { blobIds: new Set(), purged: true };
    // Deleted but not yet purged: the purge has still to find the blobs, so they stay referenced.
    case 'DocumentDeleted':
    case 'DocumentRenamed':
    case 'DocumentTagAttached':
    case 'DocumentTagDetached':
    case 'DocumentReprocessingRequested':
    case 'DocumentProcessingStarted':
    case 'DocumentProcessingSkipped':
    case 'DocumentFailed':
    case 'DocumentTagsIndexed':
      return state;
  }
}
