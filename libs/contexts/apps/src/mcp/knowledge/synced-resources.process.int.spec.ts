// The synced resources process over a real read store: a document added from an App files its resource, an upload
// files nothing; the document's deletion, or the App's, takes it out; replaying an event changes nothing.
import type { DomainEvent } from '#kernel';
import { projectionHarness } from '#testing/projection-harness';
import { SYNCED_RESOURCES, SyncedResourcesProcess, type SyncedResource } from './synced-resources.process.js';

const added = (documentId: string, provider: string, sourceUri?: string): DomainEvent => ({
  type: 'DocumentAdded',
  data: {
    documentId,
    name: documentId,
    scope: 'agent',
    ownerId: 'agt_1',
    provider,
    content: { blobId: 'b', contentHash: 'h', sizeBytes: 1, declaredType: 'text/plain' },
    tagIds: [],
    ...(sourceUri ? { sourceUri } : {}),
  },
});

describe('the synced resources process', () => {
  it('keeps the resource of each synced document until it or its App is deleted; a replay changes nothing', async () => {
    const harness = await projectionHarness(new SyncedResourcesProcess());
    const e = (event: DomainEvent) => harness.envelope(event);
    const resources = async (appId: string) =>
      (await harness.find<SyncedResource>(SYNCED_RESOURCES, { appId })).data.map((doc) => [doc.id, doc.uri]);

    const first = e(added('doc_1', 'app:notes', 'notes://handbook'));
    await harness.apply(
      first,
      e(added('doc_2', 'app:notes', 'notes://parking')),
      e(added('doc_3', 'app:wiki', 'wiki://home')),
      e(added('doc_4', 'upload')),
    );
    await harness.apply(first);
    expect(await resources('notes')).toEqual([
      ['doc_1', 'notes://handbook'],
      ['doc_2', 'notes://parking'],
    ]);
    expect(await harness.count(SYNCED_RESOURCES)).toBe(3);

    const deleted = e({ type: 'DocumentDeleted', data: { documentId: 'doc_1', reason: 'requested' } });
    await harness.apply(
      deleted,
      e({ type: 'DocumentDeleted', data: { documentId: 'doc_4', reason: 'requested' } }),
    );
    await harness.apply(deleted);
    expect(await resources('notes')).toEqual([['doc_2', 'notes://parking']]);

    const appGone = e({ type: 'AppDeleted', data: { appId: 'notes' } });
    await harness.apply(appGone);
    await harness.apply(appGone);
    expect(await resources('notes')).toEqual([]);
    expect(await resources('wiki')).toEqual([['doc_3', 'wiki://home']]);
  });
});
