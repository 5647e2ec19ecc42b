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
  ReplacePersonalAgent,
  ReplacePersonalAgentHandler,
} from '#agents/commands/replace-personal-agent/replace-personal-agent.command';
import {
  PlacePersonalAgent,
  PlacePersonalAgentHandler,
} from '#agents/commands/place-personal-agent/place-personal-agent.command';
import { agentsProjector } from './agents.projector.js';
import { agentStreamId, PersonalAgentProcess, personalAgentId } from '#agents';

describe('PersonalAgentProcess', () => {
  it("gives every user a personal Agent, and a new one when a log holds the deletion of the user's", async () => {
    const { events, reads } = inMemoryStores();
    const config = loadConfig({});
    const commands = new AggregateRepository(events, config);
    const rules = new AgentRules(ModelRegistry.build({}, config));
    const bus = directCommandBus(
      [CreatePersonalAgent, new CreatePersonalAgentHandler(commands, rules)],
      [ReplacePersonalAgent, new ReplacePersonalAgentHandler(commands, rules)],
      [PlacePersonalAgent, new PlacePersonalAgentHandler(commands)],
    );
    const projectors = [agentsProjector, new PersonalAgentProcess(bus)];
    const runner = new ProjectionRunner(events, reads, projectors, { owner: processLeaseOwner('t') });
    runner.start();

    await events.appendToStream(
      'user-u1',
      [makeEvent('UserRegistered', { userId: 'u1', email: 'ada@example.com', name: 'Ada', role: 'member' })],
      'no_stream',
    );
    const agents = reads.reader<{ id: string; isPersonal: boolean; ownerUserId: string }>('agents');
    await waitUntil(async () => (await agents.count()) === 1, 5000);
    expect((await agents.get(personalAgentId('u1')))?.ownerUserId).toBe('u1');

    // A log written before personal Agents became undeletable: the user's was deleted.
    await events.appendToStream(
      agentStreamId(personalAgentId('u1')),
      [makeEvent('AgentDeleted', { agentId: personalAgentId('u1'), reason: 'requested' })],
      0,
    );
    const replacementOf = async () =>
      (await agents.find({ ownerUserId: 'u1' })).data.find((agent) => agent.id !== personalAgentId('u1'));
    await waitUntil(async () => (await replacementOf()) !== undefined, 5000);
    expect(await replacementOf()).toMatchObject({ isPersonal: true, name: "Ada's assistant" });
    await waitUntil(async () => (await agents.get(personalAgentId('u1'))) === null, 5000);

    // A replay of the whole log (rebuild) creates nothing more: the replacement's id derives from the deletion.
    const head = await events.headPosition();
    await reads.saveProjection({ name: 'personal-agent-process', rebuildRequested: true });
    await waitUntil(
      async () => (await reads.projection('personal-agent-process'))?.liveGeneration === 2,
      5000,
    );
    expect(await events.headPosition()).toBe(head);
    await runner.stop();
  });
});
