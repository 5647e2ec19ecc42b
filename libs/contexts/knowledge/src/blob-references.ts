// What Knowledge declares to the blob gc (BlobReferences, libs/adapters/blob-store/src/blob-gc.ts), folded from the whole log:
//   - A document references every blob its events name (each content version, each extracted text and chunk list)
//     while it lives, and after its deletion until its content is purged; then nothing. Content addressing shares
//     ids between documents, so each document is folded on its own and the sets are united.
//   - A summary index references the tree serving searches, until the index is deleted.
import type { EventEnvelope } from '#kernel';
import { findBlobReferences, type BlobLogReader, type BlobReferences } from '#blob-store';
import { DOCUMENT_EVENT_TYPES, type DocumentEvent } from './document.events.js';
import {
  evolveSummaryIndex,
  initialSummaryIndexState,
  SUMMARY_INDEX_EVENT_TYPES,
  type SummaryIndexEvent,
  type SummaryIndexState,
} from './summary/summary-index.events.js';

/** What one document references: the blobs its events named, none once its content was purged. */
interface DocumentBlobs {
  readonly blobIds: ReadonlySet<string>;
  readonly purged: boolean;
}

const NO_DOCUMENT_BLOBS: DocumentBlobs = { blobIds: new Set(), purged: false };

export const documentBlobReferences: BlobReferences = {
  kind: 'knowledge documents (uploads, extracted texts, chunk lists)',
  eventTypes: DOCUMENT_EVENT_TYPES,
  start: () => {
    const documents = new Map<string, DocumentBlobs>();
    return {
      apply: (event) => {
        const { documentId } = (event as EventEnvelope & DocumentEvent).data;
        const state = documents.get(documentId) ?? NO_DOCUMENT_BLOBS;
        documents.set(documentId, evolveDocumentBlobs(state, event as EventEnvelope & DocumentEvent));
      },
      referenced: () =>
        [...documents.values()].flatMap((document) => (document.purged ? [] : [...document.blobIds])),
    };
  },
};

export const summaryTreeBlobReferences: BlobReferences = {
  kind: 'knowledge summary trees',
  eventTypes: SUMMARY_INDEX_EVENT_TYPES,
  start: () => {
    const indexes = new Map<string, SummaryIndexState>();
    return {
      apply: (event) => {
        const { agentId } = (event as EventEnvelope & SummaryIndexEvent).data;
        const state = indexes.get(agentId) ?? initialSummaryIndexState();
        indexes.set(agentId, evolveSummaryIndex(state, event as EventEnvelope & SummaryIndexEvent));
      },
      // A deleted index has no serving tree any more (evolve clears it).
      referenced: () =>
        [...indexes.values()].flatMap((index) => (index.serving ? [index.serving.treeBlobId] : [])),
    };
  },
};

export const KNOWLEDGE_BLOB_REFERENCES: readonly BlobReferences[] = [
  documentBlobReferences,
  summaryTreeBlobReferences,
];

/** Every blob Knowledge's events still reference (the whole log, read page by page). */
export async function referencedBlobIds(store: BlobLogReader, pageSize?: number): Promise<Set<string>> {
  return new Set((await findBlobReferences(store, KNOWLEDGE_BLOB_REFERENCES, pageSize)).referenced);
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
