// The Knowledge Document aggregate (spec: "Knowledge Document", "Knowledge Document status"). Events carry facts about
// a document, never its content: the file and the extracted text live in the blob store (referenced by content
// address), so deleting a document removes its content for good while the log keeps who did what and when.
import { eventTypesOf, type DomainEvent } from '#kernel';

export const DOCUMENT_SCOPES = ['agent', 'space', 'global'] as const;
/** Agent-level (one Agent), Space-level (every Agent of the Space) or Global (every Agent). */
export type DocumentScope = (typeof DOCUMENT_SCOPES)[number];

export const DOCUMENT_STATUSES = ['Pending', 'Processing', 'Ready', 'Failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** Where a document comes from: uploaded here, or a synced external source (later). */
/** `upload`: sent to the platform; `app:<appId>`: a resource of an MCP App, synced from it (`sourceUri`). */
export type DocumentProvider = 'upload' | `app:${string}`;

/** The stored content of one version of a document. */
export interface DocumentContent {
  /** Blob store id of the uploaded bytes (a content address). */
  readonly blobId: string;
  /** sha256 of the bytes: re-processing skips unchanged content. */
  readonly contentHash: string;
  readonly sizeBytes: number;
  /** As declared by the client; the pipeline sniffs the real type from the bytes. */
  readonly declaredType: string | null;
}

type Id = { readonly documentId: string };

export type DocumentEvent =
  | DomainEvent<
      'DocumentAdded',
      Id & {
        readonly name: string;
        readonly scope: DocumentScope;
        /** The Agent, the Space, or `global`. */
        readonly ownerId: string;
        readonly provider: DocumentProvider;
        readonly content: DocumentContent;
        readonly tagIds: readonly string[];
        /** A synced document's resource at its App (absent for uploads). */
        readonly sourceUri?: string;
      }
    >
  | DomainEvent<'DocumentRenamed', Id & { readonly name: string }>
  | DomainEvent<
      'DocumentContentReplaced',
      Id & { readonly content: DocumentContent; readonly version: number }
    >
  | DomainEvent<'DocumentTagAttached', Id & { readonly tagId: string }>
  | DomainEvent<'DocumentTagDetached', Id & { readonly tagId: string }>
  | DomainEvent<'DocumentReprocessingRequested', Id & { readonly version: number; readonly force: boolean }>
  | DomainEvent<'DocumentProcessingStarted', Id & { readonly version: number; readonly attempt: number }>
  | DomainEvent<
      'DocumentReady',
      Id & {
        readonly version: number;
        readonly mimeType: string;
        /** Blob store id of the extracted text. */
        readonly textBlobId: string;
        readonly chunkCount: number;
        /** Blob store id of the chunks as JSON (their text, section path and offsets); absent on older events. */
        readonly chunksBlobId?: string;
      }
    >
  | DomainEvent<
      'DocumentProcessingSkipped',
      Id & { readonly version: number; readonly reason: 'content_unchanged' }
    >
  | DomainEvent<
      'DocumentFailed',
      Id & { readonly version: number; readonly reason: string; readonly message: string }
    >
  | DomainEvent<'DocumentDeleted', Id & { readonly reason: 'requested' | 'owner_deleted' }>
  /** The search index carries these tags for the document's chunks (tags changed after it was indexed). */
  | DomainEvent<'DocumentTagsIndexed', Id & { readonly tagIds: readonly string[] }>
  /** After a deletion: the chunks left the search index and the blobs no other document uses were removed. */
  | DomainEvent<'DocumentContentPurged', Id & { readonly blobIds: readonly string[] }>;

/** Every type of the union, checked complete by the compiler. */
export const DOCUMENT_EVENT_TYPES = eventTypesOf<DocumentEvent>({
  DocumentAdded: true,
  DocumentRenamed: true,
  DocumentContentReplaced: true,
  DocumentTagAttached: true,
  DocumentTagDetached: true,
  DocumentReprocessingRequested: true,
  DocumentProcessingStarted: true,
  DocumentReady: true,
  DocumentProcessingSkipped: true,
  DocumentFailed: true,
  DocumentDeleted: true,
  DocumentContentPurged: true,
  DocumentTagsIndexed: true,
});

export interface DocumentRecord {
  readonly documentId: string;
  readonly name: string;
  readonly scope: DocumentScope;
  readonly ownerId: string;
  readonly provider: DocumentProvider;
  readonly content: DocumentContent;
  /** Increases with each content replacement and each re-processing request. */
  readonly version: number;
  readonly status: DocumentStatus;
  readonly tagIds: readonly string[];
  /** Content hash of the last version that became Ready (re-processing skips when unchanged). */
  readonly readyContentHash: string | null;
  /** Blob store id of the extracted text of the last Ready version. */
  readonly textBlobId: string | null;
  /** Blob store id of the last Ready version's chunks (JSON). */
  readonly chunksBlobId: string | null;
  readonly attempts: number;
}

export type DocumentState =
  | { readonly status: 'absent' }
  | {
      readonly status: 'deleted';
      readonly documentId: string;
      /** Blobs the document used, until they are purged. */
      readonly blobIds: readonly string[];
      readonly purged: boolean;
    }
  | ({ readonly status: DocumentStatus } & DocumentRecord);

export const documentStreamId = (documentId: string): string => `document-${documentId}`;

export const initialDocumentState = (): DocumentState => ({ status: 'absent' });

export function evolveDocument(state: DocumentState, event: DocumentEvent): DocumentState {
  if (event.type === 'DocumentAdded')
    return {
      ...event.data,
      status: 'Pending',
      version: 1,
      readyContentHash: null,
      textBlobId: null,
      chunksBlobId: null,
      attempts: 0,
    };
  if (event.type === 'DocumentDeleted')
    return {
      status: 'deleted',
      documentId: event.data.documentId,
      blobIds:
        state.status === 'absent' || state.status === 'deleted'
          ? []
          : [
              state.content.blobId,
              ...(state.textBlobId ? [state.textBlobId] : []),
              ...(state.chunksBlobId ? [state.chunksBlobId] : []),
            ],
      purged: false,
    };
  if (event.type === 'DocumentContentPurged')
    return state.status === 'deleted' ? { ...state, blobIds: [], purged: true } : state;
  if (state.status === 'absent' || state.status === 'deleted') return state;
  switch (event.type) {
    case 'DocumentRenamed':
      return { ...state, name: event.data.name };
    case 'DocumentContentReplaced':
      return {
        ...state,
        content: event.data.content,
        version: event.data.version,
        status: 'Pending',
        attempts: 0,
      };
    case 'DocumentTagAttached':
      return { ...state, tagIds: [...state.tagIds, event.data.tagId] };
    case 'DocumentTagDetached':
      return { ...state, tagIds: state.tagIds.filter((tagId) => tagId !== event.data.tagId) };
    case 'DocumentReprocessingRequested':
      return { ...state, version: event.data.version, status: 'Pending', attempts: 0 };
    case 'DocumentProcessingStarted':
      return { ...state, status: 'Processing', attempts: event.data.attempt };
    case 'DocumentReady':
      return {
        ...state,
        status: 'Ready',
        readyContentHash: state.content.contentHash,
        textBlobId: event.data.textBlobId,
        chunksBlobId: event.data.chunksBlobId ?? null,
      };
    case 'DocumentProcessingSkipped':
      return { ...state, status: 'Ready' };
    case 'DocumentFailed':
      return { ...state, status: 'Failed' };
    case 'DocumentTagsIndexed':
      return state;
  }
}
