// Time travel for Knowledge: a document's metadata as of a time, and an Agent's Knowledge set then (the documents it
// reached: its own, its Space's, Global ones, with their status then; the Ready ones are what it searched). Pure folds
// over the document streams, in the read model's shape (the same fields the projector writes), so the routes answer
// them as the live ones. A document deleted by then is absent.
import type { EventEnvelope } from '#kernel';
import type { AgentView } from '#agents';
import type { EventStore } from '#event-store';
import { foldStreamsAsOf } from '#eventsourcing';
import { DOCUMENT_EVENT_TYPES, documentStreamId, type DocumentEvent } from './document.events.js';
import type { DocumentView } from './knowledge.read-model.js';
import { visibleOwners } from './visible-owners.js';

/** The document's view after one more event (null: absent or deleted), as projections/knowledge writes it. */
export function evolveDocumentView(
  view: DocumentView | null,
  event: DocumentEvent,
  envelope: Pick<EventEnvelope, 'metadata'>,
): DocumentView | null {
  const at = envelope.metadata.occurredAt;
  if (event.type === 'DocumentAdded') {
    const { content, documentId: id, ...fields } = event.data;
    return {
      id,
      ...fields,
      status: 'Pending',
      contentHash: content.contentHash,
      blobId: content.blobId,
      sizeBytes: content.sizeBytes,
      mimeType: content.declaredType,
      version: 1,
      chunkCount: null,
      error: null,
      lastModified: at,
      indexedAt: null,
      createdAt: at,
    };
  }
  if (!view) return null;
  switch (event.type) {
    case 'DocumentRenamed':
      return { ...view, name: event.data.name, lastModified: at };
    case 'DocumentContentReplaced':
      return {
        ...view,
        contentHash: event.data.content.contentHash,
        blobId: event.data.content.blobId,
        sizeBytes: event.data.content.sizeBytes,
        mimeType: event.data.content.declaredType,
        version: event.data.version,
        status: 'Pending',
        error: null,
        lastModified: at,
      };
    case 'DocumentTagAttached':
      return { ...view, tagIds: [...view.tagIds, event.data.tagId], lastModified: at };
    case 'DocumentTagDetached':
      return { ...view, tagIds: view.tagIds.filter((tagId) => tagId !== event.data.tagId), lastModified: at };
    case 'DocumentReprocessingRequested':
      return { ...view, version: event.data.version, status: 'Pending', error: null };
    case 'DocumentProcessingStarted':
      return { ...view, status: 'Processing' };
    case 'DocumentReady':
      return {
        ...view,
        status: 'Ready',
        mimeType: event.data.mimeType,
        chunkCount: event.data.chunkCount,
        error: null,
        indexedAt: at,
      };
    case 'DocumentProcessingSkipped':
      return { ...view, status: 'Ready' };
    case 'DocumentFailed':
      return { ...view, status: 'Failed', error: { reason: event.data.reason, message: event.data.message } };
    case 'DocumentDeleted':
      return null;
    case 'DocumentContentPurged':
    case 'DocumentTagsIndexed':
      return view;
  }
}

/** A document's metadata as of a time; null when it did not exist yet or was deleted by then. */
export async function documentAsOf(
  store: EventStore,
  documentId: string,
  asOf: Date,
): Promise<DocumentView | null> {
  let view: DocumentView | null = null;
  for (const event of await store.readStream(documentStreamId(documentId))) {
    if (Date.parse(event.metadata.occurredAt) > asOf.getTime()) break;
    view = evolveDocumentView(view, event as unknown as DocumentEvent, event);
  }
  return view;
}

/**
 * The documents an Agent (as it was then: its Space) reached at a time, oldest first, with their status then: one
 * pass over the log (foldStreamsAsOf). Its Knowledge set is the Ready ones.
 */
export async function knowledgeSetAsOf(
  store: EventStore,
  agent: Pick<AgentView, 'id' | 'spaceId'>,
  asOf: Date,
): Promise<DocumentView[]> {
  const owners = new Set(visibleOwners(agent));
  const folded = await foldStreamsAsOf<DocumentView | null, DocumentEvent>(
    store,
    { streamPrefix: documentStreamId(''), eventTypes: DOCUMENT_EVENT_TYPES },
    asOf,
    () => null,
    evolveDocumentView,
  );
  return [...folded.values()]
    .map(({ state }) => state)
    .filter((view): view is DocumentView => view !== null && owners.has(view.ownerId))
    .toSorted((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
