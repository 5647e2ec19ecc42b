// Document commands and the pure decision over them. Processing commands carry the version they worked on, so the
// outcome of a superseded version (content replaced, or re-processing asked, meanwhile) changes nothing.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveDocument,
  initialDocumentState,
  type DocumentContent,
  type DocumentEvent,
  type DocumentProvider,
  type DocumentScope,
  type DocumentState,
} from './document.events.js';

export const MAX_DOCUMENT_NAME = 255;

export type DocumentCommand =
  | {
      readonly type: 'AddDocument';
      readonly documentId: string;
      readonly name: string;
      readonly scope: DocumentScope;
      readonly ownerId: string;
      readonly provider: DocumentProvider;
      readonly content: DocumentContent;
      readonly tagIds: readonly string[];
      readonly sourceUri?: string;
    }
  | {
      readonly type: 'ChangeDocument';
      readonly documentId: string;
      readonly name?: string;
      readonly content?: DocumentContent;
      /** The acting Agent's tags on the document after the change: one decision renames, replaces and re-tags. */
      readonly tagIds?: readonly string[];
      /**
       * Every tag of the acting Agent: only these are removed when missing from `tagIds`, so other Agents' tags on a
       * shared document stay. Absent: `tagIds` is the whole set.
       */
      readonly ownTagIds?: readonly string[];
    }
  | { readonly type: 'AttachDocumentTag'; readonly documentId: string; readonly tagId: string }
  | {
      readonly type: 'DetachDocumentTag';
      readonly documentId: string;
      readonly tagId: string;
      /** tag_deleted: a cascade, to which a document gone meanwhile is no error. */
      readonly reason?: 'requested' | 'tag_deleted';
    }
  | { readonly type: 'RequestReprocessing'; readonly documentId: string; readonly force: boolean }
  | { readonly type: 'StartProcessing'; readonly documentId: string; readonly version: number }
  | {
      readonly type: 'CompleteProcessing';
      readonly documentId: string;
      readonly version: number;
      readonly mimeType: string;
      readonly textBlobId: string;
      readonly chunkCount: number;
      readonly chunksBlobId?: string;
    }
  | { readonly type: 'SkipProcessing'; readonly documentId: string; readonly version: number }
  | {
      readonly type: 'FailProcessing';
      readonly documentId: string;
      readonly version: number;
      readonly reason: string;
      readonly message: string;
    }
  | {
      readonly type: 'DeleteDocument';
      readonly documentId: string;
      readonly reason: 'requested' | 'owner_deleted';
    }
  | {
      readonly type: 'RecordContentPurged';
      readonly documentId: string;
      readonly blobIds: readonly string[];
    }
  | { readonly type: 'RecordTagsIndexed'; readonly documentId: string; readonly tagIds: readonly string[] };

const PIPELINE_COMMANDS: ReadonlySet<DocumentCommand['type']> = new Set([
  'StartProcessing',
  'CompleteProcessing',
  'SkipProcessing',
  'FailProcessing',
]);

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new ValidationError('invalid_name', 'name must not be empty', 'name');
  if (trimmed.length > MAX_DOCUMENT_NAME)
    throw new ValidationError('invalid_name', `name is longer than ${MAX_DOCUMENT_NAME} characters`, 'name');
  return trimmed;
}

type DocumentOf<Type extends DocumentCommand['type']> = Extract<DocumentCommand, { readonly type: Type }>;
type LiveDocument = Exclude<DocumentState, { readonly status: 'absent' | 'deleted' }>;
type OnLiveDocument = Exclude<
  DocumentCommand,
  DocumentOf<'AddDocument' | 'RecordContentPurged' | 'RecordTagsIndexed'>
>;

function addDocument(command: DocumentOf<'AddDocument'>, state: DocumentState): DocumentEvent[] {
  const { documentId } = command;
  if (state.status !== 'absent')
    throw new ConflictError('document_exists', `document '${documentId}' already exists`);
  // Field by field: the stored event's shape is its own (document.events.ts), never whatever the command carries.
  return [
    {
      type: 'DocumentAdded',
      data: {
        documentId,
        name: checkName(command.name),
        scope: command.scope,
        ownerId: command.ownerId,
        provider: command.provider,
        content: command.content,
        tagIds: [...new Set(command.tagIds)],
        ...(command.sourceUri !== undefined ? { sourceUri: command.sourceUri } : {}),
      },
    },
  ];
}

const recordContentPurged = (
  { documentId, blobIds }: DocumentOf<'RecordContentPurged'>,
  state: DocumentState,
): DocumentEvent[] =>
  state.status === 'deleted' && !state.purged
    ? [{ type: 'DocumentContentPurged', data: { documentId, blobIds: [...blobIds] } }]
    : [];

const recordTagsIndexed = (
  { documentId, tagIds }: DocumentOf<'RecordTagsIndexed'>,
  state: DocumentState,
): DocumentEvent[] =>
  state.status === 'absent' || state.status === 'deleted'
    ? []
    : [{ type: 'DocumentTagsIndexed', data: { documentId, tagIds: [...tagIds] } }];

/** A decision about a document that exists. */
const live =
  <Command extends OnLiveDocument>(decide: (command: Command, state: LiveDocument) => DocumentEvent[]) =>
  (command: Command, state: DocumentState): DocumentEvent[] => {
    if (state.status !== 'absent' && state.status !== 'deleted') return decide(command, state);
    // The pipeline's late outcomes, and a cascade deleting or detaching again, change nothing; what a client asks is
    // a 404.
    const quiet =
      PIPELINE_COMMANDS.has(command.type) ||
      (command.type === 'DeleteDocument' && command.reason === 'owner_deleted') ||
      (command.type === 'DetachDocumentTag' && command.reason === 'tag_deleted');
    if (quiet) return [];
    throw new NotFoundError('Document', command.documentId);
  };

const changeDocument = live((command: DocumentOf<'ChangeDocument'>, state): DocumentEvent[] => {
  const { documentId } = command;
  const events: DocumentEvent[] = [];
  if (command.name !== undefined) {
    const name = checkName(command.name);
    if (name !== state.name) events.push({ type: 'DocumentRenamed', data: { documentId, name } });
  }
  if (command.content && command.content.contentHash !== state.content.contentHash)
    events.push({
      type: 'DocumentContentReplaced',
      data: { documentId, content: command.content, version: state.version + 1 },
    });
  if (command.tagIds) {
    const wanted = new Set(command.tagIds);
    const replaced = command.ownTagIds ? new Set(command.ownTagIds) : null;
    for (const tagId of state.tagIds)
      if (!wanted.has(tagId) && (replaced === null || replaced.has(tagId)))
        events.push({ type: 'DocumentTagDetached', data: { documentId, tagId } });
    for (const tagId of wanted)
      if (!state.tagIds.includes(tagId))
        events.push({ type: 'DocumentTagAttached', data: { documentId, tagId } });
  }
  return events;
});

const attachDocumentTag = live(
  ({ documentId, tagId }: DocumentOf<'AttachDocumentTag'>, state): DocumentEvent[] =>
    state.tagIds.includes(tagId) ? [] : [{ type: 'DocumentTagAttached', data: { documentId, tagId } }],
);

const detachDocumentTag = live(
  ({ documentId, tagId }: DocumentOf<'DetachDocumentTag'>, state): DocumentEvent[] =>
    state.tagIds.includes(tagId) ? [{ type: 'DocumentTagDetached', data: { documentId, tagId } }] : [],
);

const requestReprocessing = live(
  ({ documentId, force }: DocumentOf<'RequestReprocessing'>, state): DocumentEvent[] => [
    { type: 'DocumentReprocessingRequested', data: { documentId, version: state.version + 1, force } },
  ],
);

/** A pipeline outcome for a version that is no longer current, or for a document already done, changes nothing. */
const settled = (version: number, state: LiveDocument) =>
  version !== state.version || state.status === 'Ready' || state.status === 'Failed';

const startProcessing = live(
  ({ documentId, version }: DocumentOf<'StartProcessing'>, state): DocumentEvent[] =>
    // A retry after a crash starts the same version again (the attempt counts up).
    settled(version, state)
      ? []
      : [{ type: 'DocumentProcessingStarted', data: { documentId, version, attempt: state.attempts + 1 } }],
);

const completeProcessing = live((command: DocumentOf<'CompleteProcessing'>, state): DocumentEvent[] => {
  if (command.version !== state.version || state.status !== 'Processing') return [];
  return [
    {
      type: 'DocumentReady',
      data: {
        documentId: command.documentId,
        version: command.version,
        mimeType: command.mimeType,
        textBlobId: command.textBlobId,
        chunkCount: command.chunkCount,
        ...(command.chunksBlobId ? { chunksBlobId: command.chunksBlobId } : {}),
      },
    },
  ];
});

const skipProcessing = live(
  ({ documentId, version }: DocumentOf<'SkipProcessing'>, state): DocumentEvent[] =>
    settled(version, state)
      ? []
      : [{ type: 'DocumentProcessingSkipped', data: { documentId, version, reason: 'content_unchanged' } }],
);

const failProcessing = live(
  ({ documentId, version, reason, message }: DocumentOf<'FailProcessing'>, state): DocumentEvent[] =>
    settled(version, state)
      ? []
      : [{ type: 'DocumentFailed', data: { documentId, version, reason, message } }],
);

const deleteDocument = live(({ documentId, reason }: DocumentOf<'DeleteDocument'>): DocumentEvent[] => [
  { type: 'DocumentDeleted', data: { documentId, reason } },
]);

export const decideDocument = decideByType<DocumentState, DocumentCommand, DocumentEvent>({
  AddDocument: addDocument,
  RecordContentPurged: recordContentPurged,
  RecordTagsIndexed: recordTagsIndexed,
  ChangeDocument: changeDocument,
  AttachDocumentTag: attachDocumentTag,
  DetachDocumentTag: detachDocumentTag,
  RequestReprocessing: requestReprocessing,
  StartProcessing: startProcessing,
  CompleteProcessing: completeProcessing,
  SkipProcessing: skipProcessing,
  FailProcessing: failProcessing,
  DeleteDocument: deleteDocument,
});

export const documentDecider: Decider<DocumentState, DocumentCommand, DocumentEvent> = {
  initialState: initialDocumentState,
  evolve: evolveDocument,
  decide: decideDocument,
};
