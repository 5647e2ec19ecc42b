import { documentDecider, type DocumentCommand } from './document.decider.js';
import type { DocumentContent, DocumentEvent } from './document.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(documentDecider);

const content = (hash: string): DocumentContent => ({
  blobId: `sha256-${hash.padEnd(64, '0')}`,
  contentHash: `sha256-${hash.padEnd(64, '0')}`,
  sizeBytes: 10,
  declaredType: 'text/markdown',
});
const documentId = 'doc1';
const added: DocumentEvent = {
  type: 'DocumentAdded',
  data: {
    documentId,
    name: 'Guide.md',
    scope: 'agent',
    ownerId: 'agt1',
    provider: 'upload',
    content: content('a'),
    tagIds: ['t1'],
  },
};
const started = (version: number, attempt = 1): DocumentEvent => ({
  type: 'DocumentProcessingStarted',
  data: { documentId, version, attempt },
});
const ready = (version: number): DocumentEvent => ({
  type: 'DocumentReady',
  data: { documentId, version, mimeType: 'text/markdown', textBlobId: 'sha256-t', chunkCount: 3 },
});

describe('document decider', () => {
  it('adds a document Pending, trimming its name and de-duplicating tags', () => {
    given()
      .when({
        type: 'AddDocument',
        documentId,
        name: '  Guide.md ',
        scope: 'agent',
        ownerId: 'agt1',
        provider: 'upload',
        content: content('a'),
        tagIds: ['t1', 't1'],
      })
      .then([added]);
    given(added)
      .when({ type: 'AddDocument', ...added.data } as DocumentCommand)
      .thenThrows('document_exists');
  });

  it('renames, and replaces content only when the bytes differ (a new version)', () => {
    given(added)
      .when({ type: 'ChangeDocument', documentId, name: 'New.md', content: content('b') })
      .then([
        { type: 'DocumentRenamed', data: { documentId, name: 'New.md' } },
        { type: 'DocumentContentReplaced', data: { documentId, content: content('b'), version: 2 } },
      ]);
    given(added)
      .when({ type: 'ChangeDocument', documentId, name: 'Guide.md', content: content('a') })
      .then([]);
    given(added).when({ type: 'ChangeDocument', documentId, name: ' ' }).thenThrows('invalid_name');
  });

  it('renames, replaces and re-tags in one decision (one append: no half-done change)', () => {
    given(added)
      .when({
        type: 'ChangeDocument',
        documentId,
        name: 'New.md',
        content: content('b'),
        tagIds: ['t2', 't3'],
      })
      .then([
        { type: 'DocumentRenamed', data: { documentId, name: 'New.md' } },
        { type: 'DocumentContentReplaced', data: { documentId, content: content('b'), version: 2 } },
        { type: 'DocumentTagDetached', data: { documentId, tagId: 't1' } },
        { type: 'DocumentTagAttached', data: { documentId, tagId: 't2' } },
        { type: 'DocumentTagAttached', data: { documentId, tagId: 't3' } },
      ]);
    given(added)
      .when({ type: 'ChangeDocument', documentId, tagIds: ['t1'] })
      .then([]);
    given(added)
      .when({ type: 'ChangeDocument', documentId, name: ' ', tagIds: [] })
      .thenThrows('invalid_name');
  });

  it("re-tags only the acting Agent's tags: another Agent's tags on a shared document stay", () => {
    // t1 is another Agent's; the acting Agent owns t2 and t3 and asks for t3 alone.
    const tagged = { type: 'DocumentTagAttached', data: { documentId, tagId: 't2' } } as const;
    given(added, tagged)
      .when({ type: 'ChangeDocument', documentId, tagIds: ['t3'], ownTagIds: ['t2', 't3'] })
      .then([
        { type: 'DocumentTagDetached', data: { documentId, tagId: 't2' } },
        { type: 'DocumentTagAttached', data: { documentId, tagId: 't3' } },
      ]);
    given(added, tagged)
      .when({ type: 'ChangeDocument', documentId, tagIds: [], ownTagIds: ['t2', 't3'] })
      .then([{ type: 'DocumentTagDetached', data: { documentId, tagId: 't2' } }]);
  });

  it('attaches and detaches tags idempotently', () => {
    given(added)
      .when({ type: 'AttachDocumentTag', documentId, tagId: 't2' })
      .then([{ type: 'DocumentTagAttached', data: { documentId, tagId: 't2' } }]);
    given(added).when({ type: 'AttachDocumentTag', documentId, tagId: 't1' }).then([]);
    given(added).when({ type: 'DetachDocumentTag', documentId, tagId: 't9' }).then([]);
  });

  it('walks Pending → Processing → Ready for the current version only', () => {
    given(added)
      .when({ type: 'StartProcessing', documentId, version: 1 })
      .then([started(1)]);
    given(added, started(1))
      .when({
        type: 'CompleteProcessing',
        documentId,
        version: 1,
        mimeType: 'text/markdown',
        textBlobId: 'sha256-t',
        chunkCount: 3,
      })
      .then([ready(1)]);
    // Content replaced while processing: the old version's outcome changes nothing.
    const replaced: DocumentEvent = {
      type: 'DocumentContentReplaced',
      data: { documentId, content: content('b'), version: 2 },
    };
    given(added, started(1), replaced)
      .when({
        type: 'CompleteProcessing',
        documentId,
        version: 1,
        mimeType: 'text/markdown',
        textBlobId: 'x',
        chunkCount: 1,
      })
      .then([]);
    given(added, started(1), replaced)
      .when({ type: 'StartProcessing', documentId, version: 2 })
      .then([started(2)]);
  });

  it('a crash mid-processing restarts the same version with the next attempt; Ready is final', () => {
    given(added, started(1))
      .when({ type: 'StartProcessing', documentId, version: 1 })
      .then([started(1, 2)]);
    given(added, started(1), ready(1)).when({ type: 'StartProcessing', documentId, version: 1 }).then([]);
    given(added, started(1), ready(1))
      .when({ type: 'FailProcessing', documentId, version: 1, reason: 'parse_failed', message: 'x' })
      .then([]);
  });

  it('fails with a reason, and re-processing opens a new version (forced or not)', () => {
    given(added, started(1))
      .when({ type: 'FailProcessing', documentId, version: 1, reason: 'parse_failed', message: 'bad PDF' })
      .then([
        {
          type: 'DocumentFailed',
          data: { documentId, version: 1, reason: 'parse_failed', message: 'bad PDF' },
        },
      ]);
    given(added, started(1), ready(1))
      .when({ type: 'RequestReprocessing', documentId, force: true })
      .then([{ type: 'DocumentReprocessingRequested', data: { documentId, version: 2, force: true } }]);
    given(added, started(1), ready(1), {
      type: 'DocumentReprocessingRequested',
      data: { documentId, version: 2, force: false },
    })
      .when({ type: 'SkipProcessing', documentId, version: 2 })
      .then([
        { type: 'DocumentProcessingSkipped', data: { documentId, version: 2, reason: 'content_unchanged' } },
      ]);
  });

  it('deletes once; after that clients get 404, while the pipeline and cascades change nothing', () => {
    const deleted: DocumentEvent = { type: 'DocumentDeleted', data: { documentId, reason: 'requested' } };
    given(added).when({ type: 'DeleteDocument', documentId, reason: 'requested' }).then([deleted]);
    given(added, deleted)
      .when({ type: 'DeleteDocument', documentId, reason: 'requested' })
      .thenThrows('document_not_found');
    given(added, deleted).when({ type: 'DeleteDocument', documentId, reason: 'owner_deleted' }).then([]);
    given(added, deleted).when({ type: 'StartProcessing', documentId, version: 1 }).then([]);
    given(added, deleted)
      .when({ type: 'ChangeDocument', documentId, name: 'x' })
      .thenThrows('document_not_found');
    given().when({ type: 'AttachDocumentTag', documentId, tagId: 't' }).thenThrows('document_not_found');
    // The tag-deletion cascade detaching from a document gone meanwhile: nothing; a client: 404.
    given(added, deleted)
      .when({ type: 'DetachDocumentTag', documentId, tagId: 't', reason: 'tag_deleted' })
      .then([]);
    given(added, deleted)
      .when({ type: 'DetachDocumentTag', documentId, tagId: 't', reason: 'requested' })
      .thenThrows('document_not_found');
  });
});
