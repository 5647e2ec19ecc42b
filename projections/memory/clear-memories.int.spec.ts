// Clearing all of one's memories (DELETE /memory) through its command handler, over real stores: the policy's
// `memory.own.erase` decides who may (asked by the gate, as on the bus), and only the principal's own personal buckets are cleared (their keys gone).
import {
  AggregateRepository,
  ProjectionRunner,
  processLeaseOwner,
  type CommandContext,
} from '#eventsourcing';
import type { ModuleRef } from '@nestjs/core';
import { AccessGate, type Principal } from '#access';
import { ContentCipher } from '#key-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import { ForbiddenError, loadConfig } from '#kernel';
import { inMemoryStores, waitUntil } from '#testing/fixtures';
import { ClearMemories, ClearMemoriesHandler } from '#memory/commands/clear-memories/clear-memories.command';
import { MemoryReads, MemoryResolver } from '#memory/memory-resolver';
import { MemoryReader } from '#memory/memory.reader';
import { MemoryRepository } from '#memory/memory.repository';
import { memoryProjector } from './memory.projector.js';

const context = (): CommandContext => ({
  actor: { kind: 'user', id: 'usr_1' },
  correlationId: 'c1',
  now: () => new Date(),
});
const user = (userId: string): Principal => ({ kind: 'session', userId, isAdmin: false });
const source = { kind: 'api' as const, conversationId: null, messageId: null };

describe('ClearMemories for every Agent (DELETE /memory)', () => {
  let runner: ProjectionRunner | undefined;
  afterEach(async () => {
    await runner?.stop();
  });

  const setUp = async () => {
    const { events, reads } = inMemoryStores();
    const keys = new SqliteKeyStore({ path: ':memory:' });
    const cipher = new ContentCipher(keys);
    const config = loadConfig({});
    const repository = new MemoryRepository(new AggregateRepository(events, config), cipher, keys, config);
    const reader = new MemoryReader(cipher, reads, config);
    const handler = new ClearMemoriesHandler(new MemoryReads(reads), reader, repository);
    const gate = new AccessGate({ get: () => new MemoryResolver(reads) } as unknown as ModuleRef);
    const send = async (command: ClearMemories) => {
      await gate.admit(command);
      return handler.execute(command);
    };
    runner = new ProjectionRunner(events, reads, [memoryProjector], { owner: processLeaseOwner('t') });
    runner.start();
    for (const [agentId, owner, text] of [
      ['agt_a', 'usr_1', 'I drink tea'],
      ['agt_b', 'usr_1', 'I live in Porto'],
      ['agt_a', 'usr_2', 'I drink coffee'],
    ] as const)
      await repository.add({ agentId, owner, text, source, addedBy: owner }, context());
    const all = async () => [
      ...(await reader.memories('agt_a', ['usr_1', 'usr_2'])),
      ...(await reader.memories('agt_b', ['usr_1', 'usr_2'])),
    ];
    await waitUntil(async () => (await all()).length === 3);
    return { events, send, all };
  };

  it("clears the user's personal memories of every Agent, and no one else's", async () => {
    const { send, all } = await setUp();
    const { id } = await send(new ClearMemories(null, 'personal', context(), user('usr_1')));
    expect(id).toBe('usr_1');
    await waitUntil(async () => (await all()).length === 1);
    expect((await all()).map((memory) => memory.text)).toEqual(['I drink coffee']);
  });

  it.each<[string, Principal]>([
    ['an App token', { kind: 'appToken', appId: 'app_1', allowlist: ['agt_a'] }],
    ['an embed visitor', { kind: 'embedVisitor', agentId: 'agt_a', visitorId: 'vis_1' }],
    ['the platform', { kind: 'platform', process: 'test' }],
  ])("is refused to %s (memories are a user's own), appending nothing", async (_, principal) => {
    const { events, send, all } = await setUp();
    const head = await events.headPosition();
    const refused = send(new ClearMemories(null, 'personal', context(), principal));
    await expect(refused).rejects.toBeInstanceOf(ForbiddenError);
    // The denial is the policy's answer for `memory.own.erase` (the route's row), not a missing user id.
    await expect(refused).rejects.toMatchObject({
      code: 'principal_not_supported',
      message: 'only a user erases their own memories',
    });
    expect(await events.headPosition()).toBe(head);
    expect(await all()).toHaveLength(3);
  });
});
