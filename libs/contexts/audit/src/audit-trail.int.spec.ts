// The audit trail over a real SQLite event store and key store: sealed content reads "sealed" until its key is
// destroyed, "erased" after; a Space's creator key may audit it and what is inside it, another key may not.
import type { Actor, NewEvent } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { ContentCipher } from '#key-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import type { Caller } from '#access';
import { makeEvent } from '#testing/fixtures';
import { AuditTrail } from './audit-trail.js';
import { mayAuditResource } from './queries/get-audit/get-audit.query.js';

const by = (actor: Actor, event: NewEvent): NewEvent => ({
  ...event,
  metadata: { ...event.metadata, actor },
});
const caller = (apiKeyId: string, isAdmin = false) =>
  ({ apiKey: { id: apiKeyId }, isAdmin }) as unknown as Caller;

describe('AuditTrail (int)', () => {
  const events = new SqliteEventStore({ path: ':memory:' });
  const keys = new SqliteKeyStore({ path: ':memory:' });
  const trail = new AuditTrail(events, keys);
  afterAll(async () => {
    await events.close();
    await keys.close();
  });

  it('shows sealed content as "sealed", and as "erased" once its key is destroyed', async () => {
    const sealed = await new ContentCipher(keys).seal('key-m1', 'grp', 'I like tea');
    await events.appendToStream(
      'memory-bucket-agt_1-usr_1',
      [makeEvent('MemoryAdded', { memoryId: 'mem_1', agentId: 'agt_1', text: sealed })],
      'no_stream',
    );
    const text = async () =>
      (await trail.page({ resourceId: 'agt_1' })).data[0]!.changes.find((change) => change.field === 'text')!
        .after;
    expect(await text()).toBe('sealed');
    await keys.destroy('key-m1');
    expect(await text()).toBe('erased');
    expect(JSON.stringify(await trail.page({}))).not.toContain('I like tea');
  });

  it("lets a Space's creator key audit the Space and what is inside it, and no other key", async () => {
    const owner: Actor = { kind: 'apiKey', id: 'key_owner' };
    await events.appendToStream(
      'space-spc_9',
      [by(owner, makeEvent('SpaceCreated', { spaceId: 'spc_9', name: 'S' }))],
      'no_stream',
    );
    await events.appendToStream(
      'agent-agt_9',
      [by(owner, makeEvent('AgentCreated', { agentId: 'agt_9', spaceId: 'spc_9', name: 'A' }))],
      'no_stream',
    );
    const { fold } = await trail.select({});
    expect(await mayAuditResource(fold.graph(), 'spc_9', caller('key_owner'))).toBe(true);
    expect(await mayAuditResource(fold.graph(), 'agt_9', caller('key_owner'))).toBe(true);
    expect(await mayAuditResource(fold.graph(), 'spc_9', caller('key_other'))).toBe(false);
    expect(await mayAuditResource(fold.graph(), 'agt_1', caller('key_owner'))).toBe(false);
    expect(await mayAuditResource(fold.graph(), 'spc_9', caller('key_admin', true))).toBe(true);
  });

  it("lets a Space's owners audit it by their membership: a promoted owner may, a demoted creator may not", async () => {
    const creator: Actor = { kind: 'apiKey', id: 'key_creator' };
    await events.appendToStream(
      'space-spc_m',
      [
        by(creator, makeEvent('SpaceCreated', { spaceId: 'spc_m', name: 'M' })),
        by(creator, makeEvent('SpaceMemberAdded', { spaceId: 'spc_m', userId: 'usr_c', role: 'owner' })),
        by(creator, makeEvent('SpaceMemberAdded', { spaceId: 'spc_m', userId: 'usr_n', role: 'member' })),
        by(
          creator,
          makeEvent('SpaceMemberRoleChanged', { spaceId: 'spc_m', userId: 'usr_n', role: 'owner' }),
        ),
        by(
          creator,
          makeEvent('SpaceMemberRoleChanged', { spaceId: 'spc_m', userId: 'usr_c', role: 'editor' }),
        ),
      ],
      'no_stream',
    );
    const as = (apiKeyId: string, userId: string) =>
      ({
        apiKey: { id: apiKeyId, agentAccess: { kind: 'all' } },
        userId,
        isAdmin: false,
      }) as unknown as Caller;
    const { fold } = await trail.select({});
    expect(await mayAuditResource(fold.graph(), 'spc_m', as('key_new', 'usr_n'))).toBe(true);
    expect(await mayAuditResource(fold.graph(), 'spc_m', as('key_creator', 'usr_c'))).toBe(false);
  });
});
