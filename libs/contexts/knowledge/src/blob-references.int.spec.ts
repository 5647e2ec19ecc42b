// The blobs the log references, folded from hand-written events in an embedded event store.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { makeEvent } from '#testing/fixtures';
import { referencedBlobIds } from './blob-references.js';
import { documentStreamId, type DocumentContent, type DocumentEvent } from './document.events.js';
import { summaryIndexStreamId, type SummaryIndexEvent } from './summary/summary-index.events.js';

/** A fresh blob id, as content addressing would give one. */
const blobId = (): string => `sha256-${createHash('sha256').update(randomUUID()).digest('hex')}`;

const content = (id: string): DocumentContent => ({
  blobId: id,
  contentHash: id,
  sizeBytes: 10,
  declaredType: 'text/plain',
});

describe('referencedBlobIds', () => {
  let dir: string;
  let events: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blob-references-'));
    events = new SqliteEventStore({ path: join(dir, 'events.db') });
  });
  afterEach(async () => {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const documentEvents = async (documentId: string, ...history: DocumentEvent[]): Promise<void> => {
    await events.appendToStream(
      documentStreamId(documentId),
      history.map((event) => makeEvent(event.type, event.data)),
      'any',
    );
  };
  const summaryEvents = async (agentId: string, ...history: SummaryIndexEvent[]): Promise<void> => {
    await events.appendToStream(
      summaryIndexStreamId(agentId),
      history.map((event) => makeEvent(event.type, event.data)),
      'any',
    );
  };

  const added = (documentId: string, id: string): DocumentEvent => ({
    type: 'DocumentAdded',
    data: {
      documentId,
      name: `${documentId}.txt`,
      scope: 'agent',
      ownerId: 'agt_1',
      provider: 'upload',
      content: content(id),
      tagIds: [],
    },
  });
  const replaced = (documentId: string, id: string, version: number): DocumentEvent => ({
    type: 'DocumentContentReplaced',
    data: { documentId, content: content(id), version },
  });
  const ready = (documentId: string, textBlobId: string, chunksBlobId?: string): DocumentEvent => ({
    type: 'DocumentReady',
    data: {
      documentId,
      version: 1,
      mimeType: 'text/plain',
      textBlobId,
      chunkCount: 1,
      ...(chunksBlobId ? { chunksBlobId } : {}),
    },
  });
  const deleted = (documentId: string): DocumentEvent => ({
    type: 'DocumentDeleted',
    data: { documentId, reason: 'requested' },
  });
  const purged = (documentId: string, blobIds: string[]): DocumentEvent => ({
    type: 'DocumentContentPurged',
    data: { documentId, blobIds },
  });

  const requested = (agentId: string, buildId: string): SummaryIndexEvent => ({
    type: 'SummaryBuildRequested',
    data: { agentId, buildId, full: false, model: 'm', reason: 'requested' },
  });
  const started = (agentId: string, buildId: string): SummaryIndexEvent => ({
    type: 'SummaryBuildStarted',
    data: { agentId, buildId, attempt: 1, leafCount: 3, documentCount: 1 },
  });
  const completed = (agentId: string, buildId: string, treeBlobId: string): SummaryIndexEvent => ({
    type: 'SummaryBuildCompleted',
    data: {
      agentId,
      buildId,
      treeBlobId,
      model: 'm',
      nodeCount: 4,
      levels: 2,
      leafCount: 3,
      documentIds: ['doc_a', 'doc_b'],
      builtAt: new Date().toISOString(),
      reusedSummaries: 0,
    },
  });
  const pruned = (agentId: string, buildId: string, treeBlobId: string): SummaryIndexEvent => ({
    type: 'SummaryTreePruned',
    data: { agentId, buildId, documentId: 'doc_a', treeBlobId, nodeCount: 3, removedNodes: 1 },
  });

  it('references nothing in an empty log', async () => {
    expect(await referencedBlobIds(events)).toEqual(new Set());
  });

  it("references a live document's content, text and chunks, and every content version it named", async () => {
    const [content1, text1, chunks1] = [blobId(), blobId(), blobId()];
    await documentEvents('doc_live', added('doc_live', content1), ready('doc_live', text1, chunks1));
    const [version1, version2, text2, chunks2] = [blobId(), blobId(), blobId(), blobId()];
    await documentEvents(
      'doc_replaced',
      added('doc_replaced', version1),
      ready('doc_replaced', text1),
      replaced('doc_replaced', version2, 2),
      ready('doc_replaced', text2, chunks2),
    );
    await events.appendToStream(
      'space-spc_1',
      [makeEvent('SpaceCreated', { spaceId: 'spc_1', name: 'S', slug: 's', description: '', color: '#000' })],
      'no_stream',
    );

    expect(await referencedBlobIds(events)).toEqual(
      new Set([content1, text1, chunks1, version1, version2, text2, chunks2]),
    );
  });

  it('keeps a deleted document referenced until its content is purged, then drops it', async () => {
    const [pendingContent, pendingText] = [blobId(), blobId()];
    await documentEvents(
      'doc_pending',
      added('doc_pending', pendingContent),
      ready('doc_pending', pendingText),
      deleted('doc_pending'),
    );
    const [goneContent, goneText, goneChunks, oldVersion] = [blobId(), blobId(), blobId(), blobId()];
    await documentEvents(
      'doc_gone',
      added('doc_gone', oldVersion),
      replaced('doc_gone', goneContent, 2),
      ready('doc_gone', goneText, goneChunks),
      deleted('doc_gone'),
      purged('doc_gone', [goneContent, goneText, goneChunks]),
    );

    expect(await referencedBlobIds(events)).toEqual(new Set([pendingContent, pendingText]));
  });

  it('keeps content shared with a live document referenced when the other one is purged', async () => {
    const [shared, liveText, purgedText] = [blobId(), blobId(), blobId()];
    await documentEvents('doc_a', added('doc_a', shared), ready('doc_a', liveText));
    await documentEvents(
      'doc_b',
      added('doc_b', shared),
      ready('doc_b', purgedText),
      deleted('doc_b'),
      // The purge left the shared content in place: doc_a still uses it.
      purged('doc_b', [purgedText]),
    );

    expect(await referencedBlobIds(events)).toEqual(new Set([shared, liveText]));
  });

  it('references the tree serving searches: replaced by a later build, then by a prune; none once deleted', async () => {
    const [first, second, prunedTree, stalePrune] = [blobId(), blobId(), blobId(), blobId()];
    await summaryEvents(
      'agt_serving',
      requested('agt_serving', 'b1'),
      started('agt_serving', 'b1'),
      completed('agt_serving', 'b1', first),
      requested('agt_serving', 'b2'),
      started('agt_serving', 'b2'),
      completed('agt_serving', 'b2', second),
      pruned('agt_serving', 'b2', prunedTree),
      // A prune recorded against a build that no longer serves changes nothing.
      pruned('agt_serving', 'b1', stalePrune),
      // A build under way has written nothing the log names yet.
      requested('agt_serving', 'b3'),
      started('agt_serving', 'b3'),
    );
    const deletedTree = blobId();
    await summaryEvents(
      'agt_deleted',
      requested('agt_deleted', 'b1'),
      completed('agt_deleted', 'b1', deletedTree),
      { type: 'SummaryIndexDeleted', data: { agentId: 'agt_deleted' } },
    );
    const failedOnly = 'agt_failed';
    await summaryEvents(failedOnly, requested(failedOnly, 'b1'), started(failedOnly, 'b1'), {
      type: 'SummaryBuildFailed',
      data: { agentId: failedOnly, buildId: 'b1', reason: 'upstream_error', message: 'down' },
    });

    expect(await referencedBlobIds(events)).toEqual(new Set([prunedTree]));
  });

  it('folds the whole log whatever the page size', async () => {
    const expected = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const [kept, text, dropped] = [blobId(), blobId(), blobId()];
      await documentEvents(`doc_${i}`, added(`doc_${i}`, kept), ready(`doc_${i}`, text));
      await documentEvents(
        `doc_${i}_deleted`,
        added(`doc_${i}_deleted`, dropped),
        deleted(`doc_${i}_deleted`),
        purged(`doc_${i}_deleted`, [dropped]),
      );
      expected.add(kept).add(text);
    }
    const tree = blobId();
    await summaryEvents('agt_last', requested('agt_last', 'b1'), completed('agt_last', 'b1', tree));
    expected.add(tree);

    for (const pageSize of [1, 2, 5, 1000])
      expect(await referencedBlobIds(events, pageSize)).toEqual(expected);
  });
});
