import { projectionHarness } from '#testing/projection-harness';
import { KNOWLEDGE_DOCUMENTS, KNOWLEDGE_TAGS } from '#knowledge';
import { knowledgeProjector } from './knowledge.projector.js';

const documentId = 'doc1';
const content = (hash: string) => ({
  blobId: `sha256-${hash}`,
  contentHash: `sha256-${hash}`,
  sizeBytes: 42,
  declaredType: 'text/markdown',
});
const added = {
  type: 'DocumentAdded',
  data: {
    documentId,
    name: 'Guide.md',
    scope: 'agent',
    ownerId: 'agt1',
    provider: 'upload',
    content: content('a'),
    tagIds: [],
  },
};

/** A DocumentAdded as it sits in the log (JSON): its projection must not depend on today's AddDocument command. */
const STORED_DOCUMENT_ADDED = `{"type":"DocumentAdded","data":{"documentId":"doc_01","name":"Guide.md","scope":"agent",
"ownerId":"agt_01","provider":"upload","content":{"blobId":"sha256-a","contentHash":"sha256-a","sizeBytes":42,
"declaredType":"text/markdown"},"tagIds":["tag_01"]}}`;

describe('knowledge projection', () => {
  it('projects a stored DocumentAdded (its JSON from the log) into the document view', async () => {
    const h = await projectionHarness(knowledgeProjector);
    const event = h.envelope(JSON.parse(STORED_DOCUMENT_ADDED) as { type: string; data: unknown });
    await h.apply(event);
    expect(await h.get(KNOWLEDGE_DOCUMENTS, 'doc_01')).toEqual({
      id: 'doc_01',
      name: 'Guide.md',
      scope: 'agent',
      ownerId: 'agt_01',
      provider: 'upload',
      tagIds: ['tag_01'],
      status: 'Pending',
      contentHash: 'sha256-a',
      blobId: 'sha256-a',
      sizeBytes: 42,
      mimeType: 'text/markdown',
      version: 1,
      chunkCount: null,
      error: null,
      indexedAt: null,
      lastModified: event.metadata.occurredAt,
      createdAt: event.metadata.occurredAt,
    });
  });

  it('follows a document from Pending to Ready, with tags, renames and a failure reason', async () => {
    const h = await projectionHarness(knowledgeProjector);
    const e1 = h.envelope(added);
    await h.apply(
      e1,
      h.envelope({ type: 'DocumentTagAttached', data: { documentId, tagId: 't1' } }),
      h.envelope({ type: 'DocumentTagAttached', data: { documentId, tagId: 't2' } }),
      h.envelope({ type: 'DocumentTagDetached', data: { documentId, tagId: 't1' } }),
      h.envelope({ type: 'DocumentProcessingStarted', data: { documentId, version: 1, attempt: 1 } }),
    );
    expect(await h.get(KNOWLEDGE_DOCUMENTS, documentId)).toMatchObject({
      name: 'Guide.md',
      scope: 'agent',
      ownerId: 'agt1',
      status: 'Processing',
      tagIds: ['t2'],
      contentHash: 'sha256-a',
      mimeType: 'text/markdown',
      createdAt: e1.metadata.occurredAt,
    });
    await h.apply(
      h.envelope({
        type: 'DocumentFailed',
        data: { documentId, version: 1, reason: 'parse_failed', message: 'not a PDF' },
      }),
    );
    expect(await h.get(KNOWLEDGE_DOCUMENTS, documentId)).toMatchObject({
      status: 'Failed',
      error: { reason: 'parse_failed', message: 'not a PDF' },
    });
    await h.apply(
      h.envelope({
        type: 'DocumentContentReplaced',
        data: { documentId, content: content('b'), version: 2 },
      }),
      h.envelope({
        type: 'DocumentReady',
        data: { documentId, version: 2, mimeType: 'application/pdf', textBlobId: 'sha256-t', chunkCount: 7 },
      }),
    );
    expect(await h.get(KNOWLEDGE_DOCUMENTS, documentId)).toMatchObject({
      status: 'Ready',
      contentHash: 'sha256-b',
      mimeType: 'application/pdf',
      chunkCount: 7,
      version: 2,
      error: null,
      indexedAt: expect.any(String),
    });
    await h.apply(h.envelope({ type: 'DocumentDeleted', data: { documentId, reason: 'requested' } }));
    expect(await h.get(KNOWLEDGE_DOCUMENTS, documentId)).toBeNull();
  });

  it('keeps tags, and a replayed tag event changes nothing', async () => {
    const h = await projectionHarness(knowledgeProjector);
    const attach = h.envelope({ type: 'DocumentTagAttached', data: { documentId, tagId: 't1' } });
    const created = h.envelope({
      type: 'KnowledgeTagCreated',
      data: { tagId: 't1', agentId: 'agt1', name: 'Policies', color: '#112233' },
    });
    await h.apply(h.envelope(added), attach, created);
    await h.apply(attach);
    expect(await h.get(KNOWLEDGE_DOCUMENTS, documentId)).toMatchObject({ tagIds: ['t1'] });
    await h.apply(h.envelope({ type: 'KnowledgeTagRenamed', data: { tagId: 't1', name: 'Rules' } }));
    expect(await h.get(KNOWLEDGE_TAGS, 't1')).toMatchObject({
      agentId: 'agt1',
      name: 'Rules',
      color: '#112233',
    });
    await h.apply(h.envelope({ type: 'KnowledgeTagDeleted', data: { tagId: 't1' } }));
    expect(await h.get(KNOWLEDGE_TAGS, 't1')).toBeNull();
  });
});
