// The blob sweep (libs/adapters/blob-store/src/blob-gc.ts) with Knowledge's declarations, over a file-system blob store and an
// embedded event store in a fresh directory: blobs are backdated by their modification time (what the store lists as
// storedAt), never by waiting.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore, ListedBlob, StoredBlob } from '#blob-store';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { makeEvent } from '#testing/fixtures';
import { sweepBlobs as sweep, type SweepBlobsOptions, type SweptBlob } from '#blob-store';
import { KNOWLEDGE_BLOB_REFERENCES } from './blob-references.js';
import { documentStreamId, type DocumentEvent } from './document.events.js';
import { summaryIndexStreamId, type SummaryIndexEvent } from './summary/summary-index.events.js';

const HOUR = 60 * 60 * 1000;
const sweepBlobs = (options: Omit<SweepBlobsOptions, 'references'>) =>
  sweep({ ...options, references: KNOWLEDGE_BLOB_REFERENCES });
const byId = (a: SweptBlob, b: SweptBlob): number => a.id.localeCompare(b.id);
const swept = (blob: StoredBlob): SweptBlob => ({ id: blob.id, sizeBytes: blob.sizeBytes });

describe('sweepBlobs', () => {
  let dir: string;
  let blobs: FsBlobStore;
  let events: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blob-gc-'));
    blobs = new FsBlobStore({ dir: join(dir, 'blobs') });
    events = new SqliteEventStore({ path: join(dir, 'events.db') });
  });
  afterEach(async () => {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A blob stored `hoursAgo` hours ago. */
  const stored = async (hoursAgo: number, size = 100): Promise<StoredBlob> => {
    const blob = await blobs.put(randomBytes(size));
    const at = new Date(Date.now() - hoursAgo * HOUR);
    if (hoursAgo > 0) utimesSync(blobs.pathOf(blob.id), at, at);
    return blob;
  };

  /** The store, listing what `list` yields instead. */
  const listing = (list: () => AsyncIterable<ListedBlob>): BlobStore => ({
    put: (bytes, meta) => blobs.put(bytes, meta),
    get: (id) => blobs.get(id),
    stream: (id) => blobs.stream(id),
    has: (id) => blobs.has(id),
    delete: (id) => blobs.delete(id),
    list,
    close: () => blobs.close(),
  });

  const documentEvents = async (documentId: string, ...history: DocumentEvent[]): Promise<void> => {
    await events.appendToStream(
      documentStreamId(documentId),
      history.map((event) => makeEvent(event.type, event.data)),
      'any',
    );
  };
  const added = (documentId: string, blob: StoredBlob): DocumentEvent => ({
    type: 'DocumentAdded',
    data: {
      documentId,
      name: `${documentId}.txt`,
      scope: 'agent',
      ownerId: 'agt_1',
      provider: 'upload',
      content: { blobId: blob.id, contentHash: blob.id, sizeBytes: blob.sizeBytes, declaredType: null },
      tagIds: [],
    },
  });
  const ready = (documentId: string, text: StoredBlob, chunks: StoredBlob): DocumentEvent => ({
    type: 'DocumentReady',
    data: {
      documentId,
      version: 1,
      mimeType: 'text/plain',
      textBlobId: text.id,
      chunkCount: 1,
      chunksBlobId: chunks.id,
    },
  });
  const completed = (agentId: string, buildId: string, tree: StoredBlob): SummaryIndexEvent => ({
    type: 'SummaryBuildCompleted',
    data: {
      agentId,
      buildId,
      treeBlobId: tree.id,
      model: 'm',
      nodeCount: 1,
      levels: 1,
      leafCount: 1,
      documentIds: [],
      builtAt: new Date().toISOString(),
      reusedSummaries: 0,
    },
  });

  /** Blobs the log references, blobs it no longer does and crash leftovers, all three hours old; one fresh orphan. */
  async function scenario() {
    const [content, text, chunks] = [await stored(3), await stored(3, 2000), await stored(3)];
    await documentEvents('doc_live', added('doc_live', content), ready('doc_live', text, chunks));
    const pendingPurge = await stored(3);
    await documentEvents('doc_deleted', added('doc_deleted', pendingPurge), {
      type: 'DocumentDeleted',
      data: { documentId: 'doc_deleted', reason: 'requested' },
    });
    const [oldTree, servingTree] = [await stored(3, 5000), await stored(3, 700)];
    await events.appendToStream(
      summaryIndexStreamId('agt_1'),
      [completed('agt_1', 'b1', oldTree), completed('agt_1', 'b2', servingTree)].map((event) =>
        makeEvent(event.type, event.data),
      ),
      'no_stream',
    );
    // An upload that died before its event, and an ingestion that died before DocumentReady.
    const [abandonedUpload, abandonedText] = [await stored(3, 300), await stored(3, 40)];
    const fresh = await stored(0, 10);
    return {
      kept: [content, text, chunks, pendingPurge, servingTree, fresh],
      garbage: [oldTree, abandonedUpload, abandonedText],
      fresh,
    };
  }

  it('removes the blobs nothing references once older than the grace period, and keeps the rest', async () => {
    const { kept, garbage } = await scenario();

    const result = await sweepBlobs({ blobs, events });

    expect({ ...result, removed: [...result.removed].sort(byId) }).toEqual({
      scanned: 9,
      referenced: 5,
      removed: garbage.map(swept).sort(byId),
      keptYoung: 1,
      keptUnaccounted: [],
      bytesFreed: 5000 + 300 + 40,
    });
    for (const blob of garbage) expect(await blobs.has(blob.id)).toBe(false);
    for (const blob of kept) expect(await blobs.has(blob.id)).toBe(true);

    // Nothing left to remove.
    expect(await sweepBlobs({ blobs, events })).toMatchObject({ scanned: 6, removed: [], bytesFreed: 0 });
  });

  it('reports the same in a dry run and removes nothing', async () => {
    const { kept, garbage } = await scenario();

    const dryRun = await sweepBlobs({ blobs, events, dryRun: true });

    expect(dryRun).toMatchObject({ scanned: 9, referenced: 5, keptYoung: 1, bytesFreed: 5340 });
    expect([...dryRun.removed].sort(byId)).toEqual(garbage.map(swept).sort(byId));
    for (const blob of [...kept, ...garbage]) expect(await blobs.has(blob.id)).toBe(true);
    const real = await sweepBlobs({ blobs, events });
    expect({ ...real, removed: [...real.removed].sort(byId) }).toEqual({
      ...dryRun,
      removed: [...dryRun.removed].sort(byId),
    });
  });

  it('measures the grace period from `now`: a shorter one removes younger orphans, none keeps what came later', async () => {
    const orphan = await stored(2);
    const later = new Date(Date.now() + HOUR);

    const minAge = 2.5 * HOUR;
    expect(await sweepBlobs({ blobs, events, minAge })).toMatchObject({ keptYoung: 1, removed: [] });
    expect(await sweepBlobs({ blobs, events, minAge, now: later })).toMatchObject({
      keptYoung: 0,
      removed: [swept(orphan)],
    });

    // Stored after the time the sweep measures from: a writer of this sweep's time, kept even with no grace.
    const fresh = await stored(0);
    expect(await sweepBlobs({ blobs, events, minAge: 0, now: new Date(Date.now() - HOUR) })).toMatchObject({
      keptYoung: 1,
      removed: [],
    });
    expect(await sweepBlobs({ blobs, events, minAge: 0, now: later })).toMatchObject({
      keptYoung: 0,
      removed: [swept(fresh)],
    });
  });

  it('reads the log after listing: a blob referenced while the store was being listed stays', async () => {
    const uploaded = await stored(3);
    // The upload's event lands just after the listing passed its bytes (its writer was slow, not crashed).
    const listingThenAppend = listing(async function* () {
      yield* blobs.list();
      await documentEvents('doc_slow', added('doc_slow', uploaded));
    });

    const result = await sweepBlobs({ blobs: listingThenAppend, events, minAge: 0 });

    expect(result).toMatchObject({ scanned: 1, referenced: 1, removed: [] });
    expect(await blobs.has(uploaded.id)).toBe(true);
  });

  it('does not report a blob that went between the listing and its removal', async () => {
    const orphan = await stored(3);
    const gone = { id: `sha256-${'0'.repeat(64)}`, sizeBytes: 99, storedAt: new Date(Date.now() - 3 * HOUR) };
    const withPhantom = listing(async function* () {
      yield* blobs.list();
      yield gone;
    });

    const result = await sweepBlobs({ blobs: withPhantom, events });

    expect(result).toMatchObject({ scanned: 2, removed: [swept(orphan)], bytesFreed: orphan.sizeBytes });
  });

  it('refuses a negative grace period', async () => {
    await expect(sweepBlobs({ blobs, events, minAge: -1 })).rejects.toThrow(RangeError);
  });

  it('sweeps an empty store, whatever the log references', async () => {
    const missing = await stored(0);
    await blobs.delete(missing.id);
    await documentEvents('doc_missing', added('doc_missing', missing));
    expect(await sweepBlobs({ blobs, events })).toEqual({
      scanned: 0,
      referenced: 0,
      removed: [],
      keptYoung: 0,
      keptUnaccounted: [],
      bytesFreed: 0,
    });
  });

  it('keeps, and reports, blobs named by events no declaration accounts for', async () => {
    const named = await stored(3);
    const orphan = await stored(3);
    await events.appendToStream(
      'gadget-1',
      [makeEvent('GadgetBuilt', { gadgetId: 'gadget-1', parts: [{ blob: named.id }] })],
      'any',
    );
    const result = await sweepBlobs({ blobs, events });
    expect(result.removed).toEqual([swept(orphan)]);
    expect(result.keptUnaccounted).toEqual([{ id: named.id, eventTypes: ['GadgetBuilt'] }]);
    expect(await blobs.has(named.id)).toBe(true);
  });
});
