// What others hear of Knowledge documents (integration events, see #integration-events): that one was added, each
// change of its status (Pending, Processing, Ready, Failed) and its deletion. Never its name, content or text.
import { defineIntegrationEvents, type MappedEvent } from '#integration-events';
import type { DocumentEvent, DocumentStatus } from './document.events.js';

const status = (
  documentId: string,
  to: DocumentStatus,
  data: Readonly<Record<string, unknown>> = {},
): MappedEvent => ({ fact: 'status-changed', subject: { documentId }, data: { status: to, ...data } });

export const DOCUMENT_INTEGRATION_EVENTS = defineIntegrationEvents<DocumentEvent>('document', {
  DocumentAdded: ({ data }) => ({
    fact: 'added',
    subject: { documentId: data.documentId, ownerId: data.ownerId },
    data: { scope: data.scope, status: 'Pending', sizeBytes: data.content.sizeBytes },
  }),
  DocumentContentReplaced: ({ data }) => status(data.documentId, 'Pending', { version: data.version }),
  DocumentReprocessingRequested: ({ data }) => status(data.documentId, 'Pending', { version: data.version }),
  DocumentProcessingStarted: ({ data }) => status(data.documentId, 'Processing', { version: data.version }),
  DocumentReady: ({ data }) =>
    status(data.documentId, 'Ready', { version: data.version, chunkCount: data.chunkCount }),
  DocumentProcessingSkipped: ({ data }) => status(data.documentId, 'Ready', { version: data.version }),
  // The reason code only: the message may quote the file.
  DocumentFailed: ({ data }) =>
    status(data.documentId, 'Failed', { version: data.version, reason: data.reason }),
  DocumentDeleted: ({ data }) => ({
    fact: 'deleted',
    subject: { documentId: data.documentId },
    data: { reason: data.reason },
  }),
  DocumentRenamed: null,
  DocumentTagAttached: null,
  DocumentTagDetached: null,
  DocumentTagsIndexed: null,
  DocumentContentPurged: null,
});
