// The audit read model against the fold it replaces, over real SQLite stores: a scripted log (keys issued, a Space with
// members, an Agent changed, memories sealed and one erased, a platform cascade) projected in small batches answers
// every filter, order and page exactly as folding the log does; no ciphertext or secret is kept in the read model;
// GET /audit's handler answers a page without reading the log; the access graph matches the fold's.
import { randomUUID } from 'node:crypto';
import type { Actor, NewEvent } from '#kernel';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { ContentCipher } from '#key-store';
import { SqliteKeyStore } from '#key-store/sqlite/sqlite-key-store';
import { ProjectionRunner, type ReadYourWritesBus } from '#eventsourcing';
import type { Caller } from '#access';
import {
  AUDIT_ENTRIES,
  AUDIT_PROJECTION,
  AUDIT_STATES,
  AuditEntriesReader,
  AuditTrail,
  type AuditFilters,
} from '#audit';
import { GetAudit, GetAuditHandler, mayAuditResource } from '#audit/queries/get-audit/get-audit.query';
import { auditProjector } from './audit.projector.js';

const KEY: Actor = { kind: 'apiKey', id: 'key_owner' };
const ADMIN: Actor = { kind: 'apiKey', id: 'key_admin' };
const PLATFORM: Actor = { kind: 'system', id: 'space-deletion' };

let clock = Date.UTC(2026, 0, 1);
const event = (type: string, data: unknown, actor: Actor = KEY, correlationId = randomUUID()): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    correlationId,
    causationId: null,
    actor,
    occurredAt: new Date((clock += 1000)).toISOString(),
    schemaVersion: 1,
  },
});

describe('audit read model (int)', () => {
  const events = new SqliteEventStore({ path: ':memory:' });
  const reads = new SqliteReadStore({ path: ':memory:' });
  const keys = new SqliteKeyStore({ path: ':memory:' });
  const trail = new AuditTrail(events, keys);
  const reader = new AuditEntriesReader(reads);
  const runner = new ProjectionRunner(events, reads, [auditProjector], { owner: 'test' });
  const ref = { name: AUDIT_PROJECTION, generation: 1 };
  const times: string[] = [];

  beforeAll(async () => {
    const cipher = new ContentCipher(keys);
    const append = (stream: string, ...list: NewEvent[]) => events.appendToStream(stream, list, 'any');
    await append(
      'api-key-key_admin',
      event(
        'ApiKeyIssued',
        { apiKeyId: 'key_admin', ownerUserId: 'usr_admin', isAdmin: true, keyHash: 'H1' },
        ADMIN,
      ),
    );
    await append(
      'api-key-key_owner',
      event(
        'ApiKeyIssued',
        { apiKeyId: 'key_owner', ownerUserId: 'usr_owner', isAdmin: false, keyHash: 'H2' },
        ADMIN,
      ),
    );
    await append('space-spc_1', event('SpaceCreated', { spaceId: 'spc_1', name: 'One' }));
    await append(
      'space-spc_1',
      event('SpaceMemberAdded', { spaceId: 'spc_1', userId: 'usr_owner', role: 'owner' }),
    );
    await append('space-spc_2', event('SpaceCreated', { spaceId: 'spc_2', name: 'Two' }, ADMIN));
    await append(
      'agent-agt_1',
      event('AgentCreated', { agentId: 'agt_1', spaceId: 'spc_1', name: 'A', systemPrompt: 'One.' }),
    );
    times.push(new Date(clock).toISOString());
    await append(
      'agent-agt_1',
      event('AgentSystemPromptChanged', { agentId: 'agt_1', systemPrompt: 'Two.' }),
    );
    await append(
      'agent-agt_1',
      event('AgentSystemPromptChanged', { agentId: 'agt_1', systemPrompt: 'Three.' }),
    );
    await append(
      'agent-agt_2',
      event('AgentCreated', { agentId: 'agt_2', spaceId: 'spc_2', name: 'B' }, ADMIN),
    );
    const bucket = 'memory-bucket-agt_1-usr_owner';
    await append(
      bucket,
      event('MemoryAdded', { memoryId: 'mem_1', text: await cipher.seal('k1', 'g', 'I like tea') }),
    );
    await append(
      bucket,
      event('MemoryAdded', { memoryId: 'mem_2', text: await cipher.seal('k2', 'g', 'I am Ann') }),
    );
    await append(
      bucket,
      event('MemoryRevised', { memoryId: 'mem_1', text: await cipher.seal('k1', 'g', 'Coffee') }),
    );
    times.push(new Date(clock).toISOString());
    await keys.destroy('k2');
    await append(
      'document-doc_1',
      event('DocumentAdded', { documentId: 'doc_1', ownerId: 'agt_1', name: 'n.md' }),
    );
    await append(
      'usage-key_owner',
      event(
        'ModelCallRecorded',
        { callId: 'call_1', apiKeyId: 'key_owner', model: 'm', inputTokens: 3 },
        KEY,
      ),
    );
    await append(
      'usage-key_owner',
      event(
        'ModelCallsRecorded',
        { calls: [{ callId: 'call_2', apiKeyId: 'key_owner', model: 'm', inputTokens: 3 }] },
        KEY,
      ),
    );
    const cascade = randomUUID();
    await append('space-spc_1', event('SpaceDeleted', { spaceId: 'spc_1' }, KEY, cascade));
    await append('agent-agt_1', event('AgentDeleted', { agentId: 'agt_1' }, PLATFORM, cascade));
    // Projected in small batches, so a batch reads what earlier events of the same batch wrote.
    await reads.prepareGeneration(ref, auditProjector.collections);
    await reads.saveProjection({
      name: AUDIT_PROJECTION,
      liveGeneration: 1,
      liveVersion: auditProjector.version,
    });
    const all = await events.readAll({});
    for (let at = 0; at < all.length; at += 3)
      await runner.applyBatch(auditProjector, ref, all.slice(at, at + 3));
  });
  afterAll(async () => {
    await events.close();
    await reads.close();
    await keys.close();
  });

  /** Every page of a filter, as the route pages it. */
  const pages = async (
    read: (filters: AuditFilters) => Promise<{ data: unknown[]; next: number | null }>,
    filters: AuditFilters,
  ) => {
    const out: unknown[][] = [];
    let cursor: number | undefined;
    do {
      const page = await read({ ...filters, ...(cursor !== undefined ? { cursor } : {}) });
      out.push(page.data);
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    return out;
  };
  const fromFold = async (filters: AuditFilters) => {
    const page = await trail.page(filters);
    return { data: page.data, next: page.nextCursor === null ? null : Number(page.nextCursor) };
  };
  const fromReadModel = async (filters: AuditFilters) => {
    const { entries, more } = await reader.page(filters);
    return { data: await trail.redact(entries), next: more ? entries.at(-1)!.position : null };
  };

  it('answers every filter, order and page as the fold does', async () => {
    const cases: AuditFilters[] = [
      {},
      { order: 'oldest', limit: 4 },
      { limit: 2 },
      { resourceId: 'spc_1', order: 'oldest' },
      { resourceId: 'spc_1', limit: 3 },
      { resourceId: 'agt_1', action: 'AgentSystemPromptChanged', limit: 1 },
      { resourceId: 'mem_1' },
      { resourceId: 'usr_owner' },
      { resourceId: 'spc_2' },
      { resourceType: 'memory-bucket' },
      { actorId: 'usr_owner', limit: 5 },
      { actorId: 'key_admin' },
      { actorId: 'space-deletion' },
      { action: 'prompt' },
      { action: 'nothing like this' },
      { correlationId: (await events.readAll({})).at(-1)!.metadata.correlationId },
      { from: times[0], to: times[1] },
      { from: times[1], resourceId: 'agt_1', order: 'oldest', limit: 2 },
    ];
    for (const filters of cases)
      expect([filters, await pages(fromReadModel, filters)]).toEqual([
        filters,
        await pages(fromFold, filters),
      ]);
    // What the fold shows: before → after by folding, per item, sealed and erased.
    const memories = (await fromReadModel({ resourceType: 'memory-bucket', order: 'oldest' })).data;
    expect(memories.map((entry) => entry.changes.find((change) => change.field === 'text'))).toEqual([
      { field: 'text', before: null, after: 'sealed' },
      { field: 'text', before: null, after: 'erased' },
      { field: 'text', before: 'sealed', after: 'sealed' },
    ]);
  });

  it('lists no model call (usage, not a change): neither the fold nor the read model', async () => {
    for (const action of ['ModelCallRecorded', 'ModelCallsRecorded']) {
      const byType = { action } as AuditFilters;
      expect((await fromFold(byType)).data).toEqual([]);
      expect((await fromReadModel(byType)).data).toEqual([]);
    }
    expect(await reads.readerAt(AUDIT_ENTRIES, ref).count({})).toBe((await trail.select({})).entries.length);
  });

  it('keeps no ciphertext of erasable content and no secret', async () => {
    const stored = JSON.stringify([
      (await reads.readerAt(AUDIT_ENTRIES, ref).find({}, {})).data,
      (await reads.readerAt(AUDIT_STATES, ref).find({}, {})).data,
    ]);
    const ciphertexts = (await events.readAll({}))
      .map((envelope) => (envelope.data as { text?: string }).text)
      .filter((text): text is string => typeof text === 'string');
    expect(ciphertexts).toHaveLength(3);
    for (const ciphertext of ciphertexts)
      expect(stored).not.toContain(ciphertext.split(':').slice(3).join(':'));
    expect(stored).not.toContain('keyHash');
    expect(stored).not.toContain('"H1"');
  });

  it('answers the access check as the fold does', async () => {
    const { fold } = await trail.select({});
    const owner = {
      apiKey: { id: 'key_owner', agentAccess: { kind: 'all' } },
      userId: 'usr_owner',
      isAdmin: false,
    };
    const other = {
      apiKey: { id: 'key_other', agentAccess: { kind: 'all' } },
      userId: 'usr_x',
      isAdmin: false,
    };
    for (const caller of [owner, other] as unknown as Caller[])
      for (const id of ['spc_1', 'agt_1', 'mem_1', 'spc_2', 'agt_2', 'nope'])
        expect([id, await mayAuditResource(reader.graph(), id, caller)]).toEqual([
          id,
          await mayAuditResource(fold.graph(), id, caller),
        ]);
    expect(await mayAuditResource(reader.graph(), 'agt_1', owner as unknown as Caller)).toBe(true);
  });

  it("serves GET /audit's page from the read model, never reading the log", async () => {
    const settled: number[] = [];
    const writes = {
      settleAtHead: async () => void settled.push(await events.headPosition()),
    } as unknown as ReadYourWritesBus;
    const logReads: unknown[] = [];
    const readAll = events.readAll.bind(events);
    events.readAll = (options) => {
      logReads.push(options);
      return readAll(options);
    };
    const handler = new GetAuditHandler(reader, trail, writes);
    const admin = { apiKey: { id: 'key_admin' }, userId: 'usr_admin', isAdmin: true } as unknown as Caller;
    const page = await handler.execute(
      new GetAudit({ resourceId: 'agt_1', order: 'oldest', limit: 50 }, admin),
    );
    events.readAll = readAll;
    expect(logReads).toEqual([]);
    expect(settled).toEqual([await events.headPosition()]);
    expect(page.data.map((entry) => entry.eventType)).toEqual([
      'AgentCreated',
      'AgentSystemPromptChanged',
      'AgentSystemPromptChanged',
      'MemoryAdded',
      'MemoryAdded',
      'MemoryRevised',
      'DocumentAdded',
      'AgentDeleted',
    ]);
  });
});
