import type { EventEnvelope } from '#kernel';
import { projectionHarness } from '#testing/projection-harness';
import { inMemoryStores, makeEvent, waitUntil } from '#testing/fixtures';
import {
  childIndex,
  defineProcess,
  erasureHandlers,
  processLeaseOwner,
  ProjectionRunner,
  ownerCascade,
  type CascadeChild,
  type EventHandlers,
  type ProjectionContext,
} from '#eventsourcing';

type Read =
  | { type: 'FolderDeleted'; data: { folderId: string } }
  | { type: 'FileAdded'; data: { fileId: string; folderIds: string[] } }
  | { type: 'FileMoved'; data: { fileId: string; folderId: string } }
  | { type: 'FileUnlinked'; data: { fileId: string; folderId: string } }
  | { type: 'FileDeleted'; data: { fileId: string } }
  | { type: 'Audited'; data: { fileId: string } };

const cascade = ownerCascade<Read>({
  state: 'pm_folder',
  on: {
    FileAdded: (event) => event.data.folderIds.map((folderId) => ({ add: event.data.fileId, to: folderId })),
    FileMoved: (event) => [
      { remove: event.data.fileId },
      { add: event.data.fileId, to: event.data.folderId },
    ],
    FileUnlinked: (event) => ({ remove: event.data.fileId, from: event.data.folderId }),
    FileDeleted: (event) => ({ remove: event.data.fileId }),
    FolderDeleted: (event) => ({ ownerGone: event.data.folderId }),
    Audited: null,
  },
  pageSize: 100,
});

/** The process under test: "deletes" a child by recording the command it would send. */
class FolderDeletionProcess extends defineProcess<Read>({
  name: 'folder-deletion-process',
  version: 1,
  collections: cascade.collections,
}) {
  readonly sent: string[] = [];
  /** The page size of every read of its children. */
  readonly pages: (number | undefined)[] = [];
  /** What "deleting" a child does: records the command it would send (a test may replace it). */
  remove = async (child: CascadeChild, cause: EventEnvelope): Promise<void> => {
    this.sent.push(`delete ${child.id} of ${child.ownerId} for ${cause.type}@${cause.position}`);
  };
  readonly on: EventHandlers<Read> = cascade.handlers((child, cause) => this.remove(child, cause));

  override project(event: EventEnvelope, context: ProjectionContext) {
    return super.project(event, {
      get: (collection, id) => context.get(collection, id),
      find: (collection, filter, options) => {
        this.pages.push(options?.limit);
        return context.find(collection, filter, options);
      },
    });
  }
}

const setup = async () => {
  const process = new FolderDeletionProcess();
  const h = await projectionHarness(process);
  const ev = (type: Read['type'], data: Record<string, unknown>) => h.envelope({ type, data });
  const children = async () => {
    const page = await h.find('pm_folder_children');
    return page.data.map((doc) => doc.id).sort();
  };
  return { process, h, ev, children };
};

describe('defineProcess', () => {
  it('reads the event types that have a handler, keyed by its name and version', () => {
    const process = new FolderDeletionProcess();
    expect(process.name).toBe('folder-deletion-process');
    expect(process.version).toBe(1);
    expect(process.eventTypes).toEqual([
      'FileAdded',
      'FileMoved',
      'FileUnlinked',
      'FileDeleted',
      'FolderDeleted',
    ]);
    expect(process.collections.map((collection) => collection.name)).toEqual([
      'pm_folder_children',
      'pm_folder_gone',
    ]);
  });
});

describe('ownerCascade', () => {
  it('keeps one document per (owner, child) and deletes the children when the owner goes', async () => {
    const { process, h, ev, children } = await setup();
    await h.apply(ev('FileAdded', { fileId: 'f1', folderIds: ['d1', 'd2'] }));
    await h.apply(
      ev('FileAdded', { fileId: 'f2', folderIds: ['d1'] }),
      ev('FileAdded', { fileId: 'f3', folderIds: ['d2'] }),
    );
    expect(await children()).toEqual(['d1:f1', 'd1:f2', 'd2:f1', 'd2:f3']);
    expect(await h.get('pm_folder_children', 'd1:f1')).toEqual({
      id: 'd1:f1',
      ownerId: 'd1',
      childId: 'f1',
      kind: null,
    });

    await h.apply(ev('FolderDeleted', { folderId: 'd1' }));
    expect(process.sent).toEqual([
      'delete f1 of d1 for FolderDeleted@4',
      'delete f2 of d1 for FolderDeleted@4',
    ]);
    expect(await children()).toEqual(['d2:f1', 'd2:f3']);
    expect(await h.get('pm_folder_gone', 'd1')).toEqual({ id: 'd1' });
  });

  it('takes children out: from one owner, from every owner, and moves them', async () => {
    const { process, h, ev, children } = await setup();
    await h.apply(
      ev('FileAdded', { fileId: 'f1', folderIds: ['d1', 'd2'] }),
      ev('FileAdded', { fileId: 'f2', folderIds: ['d1', 'd2'] }),
      ev('FileAdded', { fileId: 'f3', folderIds: ['d1'] }),
      ev('FileUnlinked', { fileId: 'f1', folderId: 'd1' }),
      ev('FileDeleted', { fileId: 'f2' }),
      ev('FileMoved', { fileId: 'f3', folderId: 'd3' }),
    );
    expect(await children()).toEqual(['d2:f1', 'd3:f3']);
    await h.apply(ev('FolderDeleted', { folderId: 'd1' }));
    expect(process.sent).toEqual([]);
  });

  it('deletes a child added after its owner went, at once, and keeps no document for it', async () => {
    const { process, h, ev, children } = await setup();
    await h.apply(ev('FolderDeleted', { folderId: 'd1' }));
    await h.apply(ev('FileAdded', { fileId: 'late', folderIds: ['d1', 'd2'] }));
    expect(process.sent).toEqual(['delete late of d1 for FileAdded@2']);
    expect(await children()).toEqual(['d2:late']);
  });

  it('sees the children added earlier in the same batch, and a child added after the owner in that batch', async () => {
    const { process, h, ev, children } = await setup();
    await h.apply(ev('FileAdded', { fileId: 'old', folderIds: ['d1'] }));
    await h.apply(
      ev('FileAdded', { fileId: 'f1', folderIds: ['d1'] }),
      ev('FileDeleted', { fileId: 'old' }),
      ev('FolderDeleted', { folderId: 'd1' }),
      ev('FileAdded', { fileId: 'f2', folderIds: ['d1'] }),
    );
    expect(process.sent).toEqual(['delete f1 of d1 for FolderDeleted@4', 'delete f2 of d1 for FileAdded@5']);
    expect(await children()).toEqual([]);
  });

  it('is idempotent: the same event twice writes the same state and sends the same (idempotent) commands', async () => {
    const { process, h, ev, children } = await setup();
    const added = ev('FileAdded', { fileId: 'f1', folderIds: ['d1'] });
    await h.apply(added);
    await h.apply(added);
    expect(await children()).toEqual(['d1:f1']);
    const deleted = ev('FolderDeleted', { folderId: 'd1' });
    await h.apply(deleted);
    // Read again (a replay): the state says its children are gone, so nothing is sent twice.
    await h.apply(deleted);
    expect(process.sent).toEqual(['delete f1 of d1 for FolderDeleted@2']);
    expect(await children()).toEqual([]);
  });

  it('deletes 10,000 children page by page, never reading them as one array', async () => {
    const { process, h, ev } = await setup();
    const ids = Array.from({ length: 10_000 }, (_, i) => `f${String(i).padStart(5, '0')}`);
    for (let start = 0; start < ids.length; start += 500)
      await h.apply(
        ...ids.slice(start, start + 500).map((fileId) => ev('FileAdded', { fileId, folderIds: ['big'] })),
      );
    await h.apply(ev('FileAdded', { fileId: 'other', folderIds: ['small'] }));
    expect(await h.count('pm_folder_children')).toBe(10_001);

    process.pages.length = 0;
    await h.apply(ev('FolderDeleted', { folderId: 'big' }));
    expect(process.sent).toHaveLength(10_000);
    expect(new Set(process.sent.map((line) => line.split(' ')[1])).size).toBe(10_000);
    expect(process.pages).toEqual(Array.from({ length: 100 }, () => 100));
    expect(await h.count('pm_folder_children')).toBe(1);
  }, 120_000);
});

describe('ownerCascade under the runner', () => {
  it('is crash-safe: a command that fails mid-cascade makes the batch run again from the checkpoint, to the end', async () => {
    const { events, reads } = inMemoryStores();
    const process = new FolderDeletionProcess();
    const attempts = new Map<string, number>();
    const done = new Set<string>();
    // The 3rd child's command fails once (a crash of the command side): nothing of the batch is committed.
    process.remove = async (child) => {
      const attempt = (attempts.get(child.id) ?? 0) + 1;
      attempts.set(child.id, attempt);
      if (child.id === 'f3' && attempt === 1) throw new Error('command side down');
      done.add(child.id);
    };
    await events.appendToStream(
      'folder-d1',
      [
        ...['f1', 'f2', 'f3', 'f4', 'f5'].map((fileId) =>
          makeEvent('FileAdded', { fileId, folderIds: ['d1'] }),
        ),
        makeEvent('FolderDeleted', { folderId: 'd1' }),
      ],
      'no_stream',
    );
    const runner = new ProjectionRunner(events, reads, [process], {
      owner: processLeaseOwner('t'),
      maxBackoffMs: 50,
      leaseTtlMs: 600,
    });
    runner.start();
    try {
      await waitUntil(
        async () => done.size === 5 && (await reads.reader('pm_folder_gone').count()) === 1,
        10_000,
      );
      await waitUntil(() => runner.isLive(process.name), 10_000);
      expect(runner.status()[0]).toMatchObject({ state: 'live', lastError: 'command side down' });
      expect(await reads.reader('pm_folder_children').count()).toBe(0);
      // The commands before the failure were sent again (they are idempotent by their derived ids).
      expect(Object.fromEntries(attempts)).toEqual({ f1: 2, f2: 2, f3: 2, f4: 1, f5: 1 });
    } finally {
      await runner.stop();
      await events.close();
      await reads.close();
    }
  });
});

describe('childIndex', () => {
  type Sandboxes =
    | { type: 'SandboxCreated'; data: { conversationId: string; agentId: string } }
    | { type: 'SandboxDestroyed'; data: { conversationId: string } }
    | { type: 'SkillsChanged'; data: Record<string, never> };
  const active = childIndex('pm_test_sandboxes', 3);

  it("lets a process act on every child, or one owner's, page by page", async () => {
    const rebuilt: string[] = [];
    class Lifecycle extends defineProcess<Sandboxes>({
      name: 'lifecycle',
      version: 1,
      collections: [active.collection],
    }) {
      readonly on: EventHandlers<Sandboxes> = {
        SandboxCreated: ({ data }, context) => active.add(context, data.agentId, data.conversationId),
        SandboxDestroyed: ({ data }, context) => active.remove(context, data.conversationId),
        SkillsChanged: async (_event, context) => {
          await active.each(context, {}, async (member) => void rebuilt.push(member.childId));
          return [];
        },
      };
    }
    const h = await projectionHarness(new Lifecycle());
    const created = (conversationId: string, agentId: string) =>
      h.envelope({ type: 'SandboxCreated', data: { conversationId, agentId } });
    await h.apply(...['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => created(id, id < 'c3' ? 'a1' : 'a2')));
    await h.apply(
      h.envelope({ type: 'SandboxDestroyed', data: { conversationId: 'c4' } }),
      created('c6', 'a1'),
      h.envelope({ type: 'SkillsChanged', data: {} }),
    );
    expect(rebuilt.sort()).toEqual(['c1', 'c2', 'c3', 'c5', 'c6']);
    expect((await h.find('pm_test_sandboxes', { ownerId: 'a1' })).data.map((doc) => doc.id)).toEqual([
      'a1:c1',
      'a1:c2',
      'a1:c6',
    ]);
  });
});

describe('erasureHandlers', () => {
  type Erasure =
    | { type: 'NoteDeleted'; data: { noteId: string } }
    | { type: 'BookCleared'; data: { bookId: string } }
    | { type: 'NoteAdded'; data: { noteId: string } };

  it('destroys the keys and groups its table names per event, and writes nothing', async () => {
    const destroyed: string[] = [];
    const keys = {
      destroy: async (id: string) => void destroyed.push(`key ${id}`),
      destroyGroup: async (group: string) => void destroyed.push(`group ${group}`),
    };
    class ErasureProcess extends defineProcess<Erasure>({ name: 'erasure', version: 1 }) {
      readonly on = erasureHandlers<Erasure>(
        {
          NoteDeleted: (event) => ({ keys: [event.data.noteId] }),
          BookCleared: (event) => ({ groups: [`book:${event.data.bookId}`] }),
          NoteAdded: null,
        },
        () => keys,
      );
    }
    const process = new ErasureProcess();
    const h = await projectionHarness(process);
    expect(process.eventTypes).toEqual(['NoteDeleted', 'BookCleared']);
    expect(process.collections).toEqual([]);
    const note = h.envelope({ type: 'NoteDeleted', data: { noteId: 'n1' } });
    await h.apply(
      h.envelope({ type: 'NoteAdded', data: { noteId: 'n1' } }),
      note,
      h.envelope({ type: 'BookCleared', data: { bookId: 'b1' } }),
    );
    await h.apply(note);
    expect(destroyed).toEqual(['key n1', 'group book:b1', 'key n1']);
  });
});
