import { loadConfig } from '#kernel';
import { ProjectionRunner, processLeaseOwner } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import { ModelRegistry } from '#model-providers';
import { inMemoryStores, makeEvent, waitUntil } from '#testing/fixtures';
import { directCommandBus } from '#testing/direct-command-bus';
import { AgentRules } from '#agents/agent-rules';
import {
  CreatePersonalAgent,
  CreatePersonalAgentHandler,
} from '#agents/commands/create-personal-agent/create-personal-agent.command';
import {
  PlacePersonalAgent,
  PlacePersonalAgentHandler,
} from '#agents/commands/place-personal-agent/place-personal-agent.command';
import { agentStreamId, PersonalAgentProcess, personalAgentId } from '#agents';
import {
  CreatePersonalSpace,
  CreatePersonalSpaceHandler,
} from '#spaces/commands/create-personal-space/create-personal-space.command';
import { PersonalSpaceProcess, personalSpaceId, SPACES } from '#spaces';
import { agentsProjector } from '../agents/agents.projector.js';
import { spacesProjector } from './spaces.projector.js';

describe('PersonalSpaceProcess (with the personal-agent process)', () => {
  it('gives every user, existing or new, one private personal Space holding their personal Agent; a replay adds nothing', async () => {
    const { events, reads } = inMemoryStores();
    const config = loadConfig({});
    const aggregates = new AggregateRepository(events, config);
    const rules = new AgentRules(ModelRegistry.build({}, config));
    const bus = directCommandBus(
      [CreatePersonalAgent, new CreatePersonalAgentHandler(aggregates, rules)],
      [PlacePersonalAgent, new PlacePersonalAgentHandler(aggregates)],
      [CreatePersonalSpace, new CreatePersonalSpaceHandler(aggregates)],
    );

    // A user from before personal Spaces: registered, with a personal Agent in no Space.
    await events.appendToStream(
      'user-u0',
      [makeEvent('UserRegistered', { userId: 'u0', email: 'old@example.com', name: 'Old', role: 'member' })],
      'no_stream',
    );
    await events.appendToStream(
      agentStreamId(personalAgentId('u0')),
      [
        makeEvent('AgentCreated', {
          agentId: personalAgentId('u0'),
          spaceId: null,
          isPersonal: true,
          ownerUserId: 'u0',
          name: "Old's assistant",
          model: 'offline-chat',
        }),
      ],
      'no_stream',
    );

    const projectors = [
      spacesProjector,
      agentsProjector,
      new PersonalSpaceProcess(bus),
      new PersonalAgentProcess(bus),
    ];
    const runner = new ProjectionRunner(events, reads, projectors, { owner: processLeaseOwner('t') });
    runner.start();
    await events.appendToStream(
      'user-u1',
      [makeEvent('UserRegistered', { userId: 'u1', email: 'ada@example.com', name: 'Ada', role: 'member' })],
      'no_stream',
    );

    const spaces = reads.reader<{ id: string; personalOf?: string; members?: Record<string, string> }>(
      SPACES,
    );
    const agents = reads.reader<{ id: string; spaceId: string | null }>('agents');
    // Each projector reads the log at its own pace: wait for both read models, not one.
    for (const user of ['u0', 'u1'])
      await waitUntil(
        async () =>
          (await agents.get(personalAgentId(user)))?.spaceId === personalSpaceId(user) &&
          (await spaces.get(personalSpaceId(user)))?.personalOf === user,
        5000,
      );
    for (const user of ['u0', 'u1'])
      expect(await spaces.get(personalSpaceId(user))).toMatchObject({
        personalOf: user,
        members: { [user]: 'owner' },
      });

    // A replay of the whole log (rebuild of both processes) appends nothing.
    const head = await events.headPosition();
    for (const name of ['personal-space-process', 'personal-agent-process'])
      await reads.saveProjection({ name, rebuildRequested: true });
    for (const name of ['personal-space-process', 'personal-agent-process'])
      await waitUntil(async () => (await reads.projection(name))?.liveGeneration === 2, 5000);
    expect(await events.headPosition()).toBe(head);
    await runner.stop();
  });
});
