import { loadConfig } from '#kernel';
import { ProjectionRunner, processLeaseOwner } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import { inMemoryStores, makeEvent, waitUntil } from '#testing/fixtures';
import { directCommandBus } from '#testing/direct-command-bus';
import { DeleteAgent, DeleteAgentHandler } from '#agents/commands/delete-agent/delete-agent.command';
import { agentsProjector } from './agents.projector.js';
import { AGENT_DEFAULTS } from '#agents/agent.decider';
import { agentStreamId, SpaceDeletionProcess } from '#agents';

describe('SpaceDeletionProcess', () => {
  const agentCreated = (agentId: string, spaceId: string) =>
    makeEvent('AgentCreated', {
      agentId,
      spaceId,
      isPersonal: false,
      ownerUserId: null,
      ...AGENT_DEFAULTS,
      name: agentId,
      model: 'm',
    });

  it('deletes the Agents of a deleted Space, and an Agent created there afterwards; a replay appends nothing', async () => {
    const { events, reads } = inMemoryStores();
    const commands = new AggregateRepository(events, loadConfig({}));
    const bus = directCommandBus([DeleteAgent, new DeleteAgentHandler(commands)]);
    const projectors = [agentsProjector, new SpaceDeletionProcess(bus)];
    const runner = new ProjectionRunner(events, reads, projectors, { owner: processLeaseOwner('t') });
    runner.start();

    await events.appendToStream(
      'space-s1',
      [makeEvent('SpaceCreated', { spaceId: 's1', name: 'S', slug: 's', description: '', color: '#000' })],
      'no_stream',
    );
    await events.appendToStream(agentStreamId('a1'), [agentCreated('a1', 's1')], 'no_stream');
    await events.appendToStream(agentStreamId('a2'), [agentCreated('a2', 's1')], 'no_stream');
    await events.appendToStream(agentStreamId('other'), [agentCreated('other', 's2')], 'no_stream');
    await events.appendToStream('space-s1', [makeEvent('SpaceDeleted', { spaceId: 's1' })], 0);
    // A create that raced the deletion (its Space check passed before the delete landed).
    await events.appendToStream(agentStreamId('late'), [agentCreated('late', 's1')], 'no_stream');

    const agents = reads.reader('agents');
    await waitUntil(async () => (await agents.count()) === 1, 5000);
    expect((await agents.find()).data.map((a) => a.id)).toEqual(['other']);
    for (const id of ['a1', 'a2', 'late']) {
      const stream = await events.readStream(agentStreamId(id));
      expect(stream.map((e) => e.type)).toEqual(['AgentCreated', 'AgentDeleted']);
      expect(stream[1]!.data).toMatchObject({ reason: 'space_deleted' });
      expect(stream[1]!.metadata).toMatchObject({
        actor: { kind: 'system' },
        causationId: expect.any(String),
      });
    }

    // Rebuilding the process manager replays SpaceDeleted: the derived event ids make its commands no-ops.
    const head = await events.headPosition();
    await reads.saveProjection({ name: 'space-deletion-process', rebuildRequested: true });
    await waitUntil(
      async () => (await reads.projection('space-deletion-process'))?.liveGeneration === 2,
      5000,
    );
    expect(await events.headPosition()).toBe(head);
    await runner.stop();
  });
});
