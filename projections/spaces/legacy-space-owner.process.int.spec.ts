import { loadConfig } from '#kernel';
import { AggregateRepository, ProjectionRunner, processLeaseOwner } from '#eventsourcing';
import { inMemoryStores, makeEvent, waitUntil } from '#testing/fixtures';
import { directCommandBus } from '#testing/direct-command-bus';
import {
  AdoptSpaceCreator,
  AdoptSpaceCreatorHandler,
} from '#spaces/commands/adopt-space-creator/adopt-space-creator.command';
import { LegacySpaceOwnerProcess, SPACES, spaceStreamId } from '#spaces';
import { spacesProjector } from './spaces.projector.js';

const by = (actor: { kind: string; id: string }, type: string, data: unknown) => {
  const event = makeEvent(type, data);
  return { ...event, metadata: { ...event.metadata, actor } } as typeof event;
};
const created = (spaceId: string) => ({
  spaceId,
  name: spaceId,
  slug: spaceId,
  description: '',
  color: '#6366f1',
});

describe('LegacySpaceOwnerProcess (issue 22 gap 4)', () => {
  it("makes the creator of a Space from before members its owner (a key's owner, or the user); a replay adds nothing", async () => {
    const { events, reads } = inMemoryStores();
    const aggregates = new AggregateRepository(events, loadConfig({}));
    const bus = directCommandBus([AdoptSpaceCreator, new AdoptSpaceCreatorHandler(aggregates)]);
    const key = { kind: 'apiKey', id: 'key_1' };
    await events.appendToStream(
      'apikey-key_1',
      [by({ kind: 'system', id: 'test' }, 'ApiKeyIssued', { apiKeyId: 'key_1', ownerUserId: 'usr_k' })],
      'no_stream',
    );
    // Before members: created by a key, by a signed-in user; one of them deleted since.
    await events.appendToStream(
      spaceStreamId('s_key'),
      [by(key, 'SpaceCreated', created('s_key'))],
      'no_stream',
    );
    await events.appendToStream(
      spaceStreamId('s_user'),
      [by({ kind: 'user', id: 'usr_u' }, 'SpaceCreated', created('s_user'))],
      'no_stream',
    );
    await events.appendToStream(
      spaceStreamId('s_gone'),
      [by(key, 'SpaceCreated', created('s_gone')), by(key, 'SpaceDeleted', { spaceId: 's_gone' })],
      'no_stream',
    );
    // Since members: its creator is recorded with its creation, and another owner took over (nothing to adopt).
    await events.appendToStream(
      spaceStreamId('s_new'),
      [
        by(key, 'SpaceCreated', created('s_new')),
        by(key, 'SpaceMemberAdded', { spaceId: 's_new', userId: 'usr_other', role: 'owner' }),
      ],
      'no_stream',
    );

    const runner = new ProjectionRunner(events, reads, [spacesProjector, new LegacySpaceOwnerProcess(bus)], {
      owner: processLeaseOwner('t'),
    });
    runner.start();
    const spaces = reads.reader<{ id: string; members?: Record<string, string> }>(SPACES);
    await waitUntil(async () => (await spaces.get('s_user'))?.members?.usr_u === 'owner', 5000);
    await waitUntil(async () => (await spaces.get('s_key'))?.members?.usr_k === 'owner', 5000);
    expect((await spaces.get('s_new'))?.members).toEqual({ usr_other: 'owner' });
    expect(await aggregates.store.streamRevision(spaceStreamId('s_gone'))).toBe(1);

    // A replay of the whole log (a rebuild of the process) appends nothing.
    const head = await events.headPosition();
    await reads.saveProjection({ name: 'legacy-space-owner-process', rebuildRequested: true });
    await waitUntil(
      async () => (await reads.projection('legacy-space-owner-process'))?.liveGeneration === 2,
      5000,
    );
    expect(await events.headPosition()).toBe(head);
    await runner.stop();
  });
});
