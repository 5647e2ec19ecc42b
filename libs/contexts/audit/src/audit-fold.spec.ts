import { randomUUID } from 'node:crypto';
import type { Actor, EventEnvelope } from '#kernel';
import { AuditFold, ERASED_MARK, redact, resourceOfStream, SEALED_MARK } from './audit-fold.js';
import { AUDIT_FIELD_READINGS } from './audit-trail.js';
import { actionOf } from './audit-actions.js';

const admin: Actor = { kind: 'apiKey', id: 'key_admin' };

function log() {
  let position = 0;
  const revisions = new Map<string, number>();
  return (
    streamId: string,
    type: string,
    data: unknown,
    actor: Actor = admin,
    meta: { correlationId?: string; causationId?: string | null } = {},
  ): EventEnvelope => {
    position += 1;
    const revision = revisions.get(streamId) ?? 0;
    revisions.set(streamId, revision + 1);
    return {
      id: randomUUID(),
      type,
      data,
      streamId,
      revision,
      position,
      metadata: {
        correlationId: meta.correlationId ?? `c${position}`,
        causationId: meta.causationId ?? null,
        actor,
        occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString(),
        schemaVersion: 1,
      },
    };
  };
}

const agentCreated = (agentId: string, spaceId: string) => ({
  agentId,
  spaceId,
  name: 'Helper',
  model: 'm1',
  systemPrompt: 'Be brief.',
  memoryEnabled: false,
  sharedMemoryEnabled: false,
  isPublic: false,
  allowedUrls: [],
  embedSessionMinutes: 60,
  embedWindowTitle: 'Chat',
  temperature: null,
  topP: null,
  topK: null,
  knowledgeEnabled: true,
  includeAiSummary: false,
  isPersonal: false,
  ownerUserId: null,
});

describe('AuditFold', () => {
  it('derives before → after of the fields an event changed, by folding the stream', () => {
    const e = log();
    const fold = new AuditFold({ changesByStreamType: AUDIT_FIELD_READINGS });
    fold.apply(
      e('space-spc_1', 'SpaceCreated', {
        spaceId: 'spc_1',
        name: 'R',
        slug: 'r',
        description: '',
        color: '#fff',
      }),
    );
    fold.apply(e('agent-agt_1', 'AgentCreated', agentCreated('agt_1', 'spc_1')));
    const first = fold.apply(
      e('agent-agt_1', 'AgentSystemPromptChanged', { agentId: 'agt_1', systemPrompt: 'Be kind.' }),
    );
    const second = fold.apply(
      e('agent-agt_1', 'AgentSystemPromptChanged', { agentId: 'agt_1', systemPrompt: 'Be exact.' }),
    );
    const toggle = fold.apply(e('agent-agt_1', 'AgentMemoryEnabled', { agentId: 'agt_1' }));
    expect(first.changes).toEqual([{ field: 'systemPrompt', before: 'Be brief.', after: 'Be kind.' }]);
    expect(second.changes).toEqual([{ field: 'systemPrompt', before: 'Be kind.', after: 'Be exact.' }]);
    expect(toggle.changes).toEqual([{ field: 'memoryEnabled', before: false, after: true }]);
    expect(first.action).toBe("changed the Agent's prompt");
    expect(first.resource).toEqual({ type: 'agent', id: 'agt_1', streamId: 'agent-agt_1', revision: 1 });
  });

  it("carries the source address: the metadata's request source, else an identity event's own source", () => {
    const append = log();
    const fold = new AuditFold();
    const fromRequest = append('space-spc_1', 'SpaceCreated', { spaceId: 'spc_1', name: 'A' });
    const withSource = {
      ...fromRequest,
      metadata: { ...fromRequest.metadata, source: { address: '10.0.0.7', userAgent: 'curl/8' } },
    };
    expect(fold.apply(withSource).sourceAddress).toBe('10.0.0.7');
    const identity = append('user-usr_1', 'UserRoleChanged', {
      userId: 'usr_1',
      role: 'admin',
      source: { address: '10.0.0.8', userAgent: null },
    });
    expect(fold.apply(identity).sourceAddress).toBe('10.0.0.8');
    const skill = append('skill-skl_1', 'SkillCreated', { skillId: 'skl_1', source: 'CUSTOM' });
    expect(fold.apply(skill).sourceAddress).toBeNull();
    expect(fold.apply(append('space-spc_2', 'SpaceCreated', { spaceId: 'spc_2' })).sourceAddress).toBeNull();
  });

  it('a field set to the value it had is no change', () => {
    const e = log();
    const fold = new AuditFold();
    fold.apply(e('space-spc_1', 'SpaceCreated', { spaceId: 'spc_1', name: 'R' }));
    expect(fold.apply(e('space-spc_1', 'SpaceRenamed', { spaceId: 'spc_1', name: 'R' })).changes).toEqual([]);
  });

  it('names the person behind an API key, and the platform for system events', () => {
    const e = log();
    const fold = new AuditFold();
    fold.apply(
      e('apikey-key_2', 'ApiKeyIssued', {
        apiKeyId: 'key_2',
        ownerUserId: 'usr_9',
        isAdmin: false,
        keyHash: 'h',
      }),
    );
    const byKey = fold.apply(
      e('space-spc_1', 'SpaceCreated', { spaceId: 'spc_1', name: 'R' }, { kind: 'apiKey', id: 'key_2' }),
    );
    const bySystem = fold.apply(
      e('agent-agt_1', 'AgentDeleted', { agentId: 'agt_1' }, { kind: 'system', id: 'platform' }),
    );
    expect(byKey.actor).toEqual({ kind: 'apiKey', id: 'key_2', userId: 'usr_9' });
    expect(byKey.credentialKind).toBe('apiKey');
    expect(bySystem.actor).toEqual({ kind: 'platform', id: 'platform', userId: null });
    expect(bySystem.credentialKind).toBe('none');
  });

  it('knows what lives inside what, transitively, from the ids the events name', () => {
    const e = log();
    const fold = new AuditFold({ changesByStreamType: AUDIT_FIELD_READINGS });
    fold.apply(e('space-spc_1', 'SpaceCreated', { spaceId: 'spc_1', name: 'R' }));
    fold.apply(e('agent-agt_1', 'AgentCreated', agentCreated('agt_1', 'spc_1')));
    const doc = fold.apply(
      e('document-doc_1', 'DocumentUploaded', { documentId: 'doc_1', agentId: 'agt_1' }),
    );
    const other = fold.apply(e('space-spc_2', 'SpaceCreated', { spaceId: 'spc_2', name: 'S' }));
    expect(fold.entryWithin(doc, 'spc_1')).toBe(true);
    expect(fold.entryWithin(doc, 'agt_1')).toBe(true);
    expect(fold.entryWithin(other, 'spc_1')).toBe(false);
  });

  it('lists unknown event types by their name in words', () => {
    expect(actionOf('SkillVersionPublished')).toBe('skill version published');
  });

  it("names a change of a user's spend limit in the trail", () => {
    expect(actionOf('UserSpendLimitChanged')).toBe("changed a user's weekly spend limit");
  });
});

describe('redact', () => {
  it('drops secrets and never shows sealed content: "sealed" while its key lives, "erased" after', () => {
    const value = {
      keyHash: 'abc',
      name: 'n',
      text: 'sealed:v1:k1:iv:tag:ct',
      other: 'sealed:v1:k2:iv:tag:ct',
    };
    expect(redact(value, new Set(['k1']))).toEqual({ name: 'n', text: SEALED_MARK, other: ERASED_MARK });
  });
});

describe('resourceOfStream', () => {
  it('takes the words before the first entity id as the type', () => {
    expect(resourceOfStream('agent-agt_1')).toEqual({ type: 'agent', id: 'agt_1' });
    expect(resourceOfStream('memory-bucket-agt_1-usr_2')).toEqual({
      type: 'memory-bucket',
      id: 'agt_1-usr_2',
    });
    expect(resourceOfStream('conversation-sandbox-cnv_1')).toEqual({
      type: 'conversation-sandbox',
      id: 'cnv_1',
    });
    expect(resourceOfStream('unique-space-name-abc')).toEqual({ type: 'unique', id: 'space-name-abc' });
  });

  it('puts a memory bucket inside the Agent its stream names', () => {
    const e = log();
    const fold = new AuditFold();
    const entry = fold.apply(e('memory-bucket-agt_1-usr_2', 'MemoryAdded', { text: 'sealed:v1:k:iv:t:c' }));
    expect(fold.entryWithin(entry, 'agt_1')).toBe(true);
    expect(fold.entryWithin(entry, 'agt_9')).toBe(false);
  });
});

describe('streams of many items', () => {
  it("folds each item apart: one memory's text is never another's before", () => {
    const e = log();
    const fold = new AuditFold({ itemFieldByStreamType: { 'memory-bucket': 'memoryId' } });
    fold.apply(e('memory-bucket-agt_1-usr_2', 'MemoryAdded', { memoryId: 'mem_1', text: 'a', version: 1 }));
    const second = fold.apply(
      e('memory-bucket-agt_1-usr_2', 'MemoryAdded', { memoryId: 'mem_2', text: 'b', version: 1 }),
    );
    const revised = fold.apply(
      e('memory-bucket-agt_1-usr_2', 'MemoryRevised', { memoryId: 'mem_1', text: 'c', version: 2 }),
    );
    expect(second.changes).toContainEqual({ field: 'text', before: null, after: 'b' });
    expect(revised.changes).toEqual([
      { field: 'text', before: 'a', after: 'c' },
      { field: 'version', before: 1, after: 2 },
    ]);
    expect(revised.resource.itemId).toBe('mem_1');
    expect(fold.entryWithin(revised, 'mem_1')).toBe(true);
    expect(fold.entryWithin(second, 'mem_1')).toBe(false);
  });
});
