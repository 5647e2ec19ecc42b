// The platform's integration events as the relay publishes them: the contract's types and subjects for each context,
// and what never leaves (sealed texts, emails, prompts, failure messages).
import type { EventEnvelope } from '#kernel';
import { IntegrationEventRelay, toIntegrationEvent } from '#integration-events';
import { InProcessMessageBus } from '#message-bus/in-process-message-bus';
import { INTEGRATION_EVENT_MAPS } from './integration-events.js';

let position = 0;
const envelope = (streamId: string, type: string, data: unknown): EventEnvelope => ({
  id: `evt-${++position}`,
  type,
  data,
  streamId,
  revision: 0,
  position,
  metadata: {
    correlationId: 'cor-1',
    causationId: null,
    actor: { kind: 'user', id: 'usr_1' },
    occurredAt: '2026-11-23T05:00:00.000Z',
    schemaVersion: 1,
  },
});

const publish = (streamId: string, type: string, data: unknown) =>
  toIntegrationEvent(INTEGRATION_EVENT_MAPS, envelope(streamId, type, data));

describe('the platform integration events', () => {
  it('reads each source event type in one map only (the relay refuses two)', () => {
    expect(() => new IntegrationEventRelay(new InProcessMessageBus(), INTEGRATION_EVENT_MAPS)).not.toThrow();
    expect(
      () =>
        new IntegrationEventRelay(new InProcessMessageBus(), [
          ...INTEGRATION_EVENT_MAPS,
          INTEGRATION_EVENT_MAPS[0]!,
        ]),
    ).toThrow(/Two integration-event maps read/);
  });

  it('tells of an Agent created and deleted, and of a changed setting without its value', () => {
    const created = publish('agent-agt_1', 'AgentCreated', {
      agentId: 'agt_1',
      spaceId: 'spc_1',
      ownerUserId: null,
      name: 'Helper',
      model: 'm',
      isPersonal: false,
      systemPrompt: 'the prompt',
    });
    expect(created).toEqual({
      topic: 'agent-platform.agent.v1',
      event: {
        id: 'evt-1',
        type: 'agent.created.v1',
        version: 1,
        occurredAt: '2026-11-23T05:00:00.000Z',
        subject: { agentId: 'agt_1', spaceId: 'spc_1', ownerUserId: null },
        correlationId: 'cor-1',
        data: { name: 'Helper', model: 'm', isPersonal: false },
      },
    });
    const prompt = publish('agent-agt_1', 'AgentSystemPromptChanged', {
      agentId: 'agt_1',
      systemPrompt: 'new prompt',
    });
    expect(prompt?.event).toMatchObject({
      type: 'agent.settings-changed.v1',
      data: { setting: 'systemPrompt' },
    });
    expect(JSON.stringify(prompt)).not.toContain('new prompt');
    expect(
      publish('agent-agt_1', 'AgentDeleted', { agentId: 'agt_1', reason: 'space_deleted' })?.event,
    ).toMatchObject({
      type: 'agent.deleted.v1',
      subject: { agentId: 'agt_1' },
      data: { reason: 'space_deleted' },
    });
  });

  it("tells of a document's status changes, never its failure message", () => {
    expect(
      publish('document-doc_1', 'DocumentReady', {
        documentId: 'doc_1',
        version: 2,
        mimeType: 'text/plain',
        textBlobId: 'b',
        chunkCount: 7,
      })?.event,
    ).toMatchObject({
      type: 'document.status-changed.v1',
      subject: { documentId: 'doc_1' },
      data: { status: 'Ready', version: 2, chunkCount: 7 },
    });
    const failed = publish('document-doc_1', 'DocumentFailed', {
      documentId: 'doc_1',
      version: 2,
      reason: 'parse_error',
      message: 'line 3 of salaries.csv',
    });
    expect(failed?.event.data).toEqual({ status: 'Failed', version: 2, reason: 'parse_error' });
    expect(JSON.stringify(failed)).not.toContain('salaries');
    expect(publish('document-doc_1', 'DocumentRenamed', { documentId: 'doc_1', name: 'x' })).toBeNull();
  });

  it('tells of a Skill version published and rolled back', () => {
    expect(
      publish('skill-skl_1', 'SkillVersionPublished', { skillId: 'skl_1', versionId: 'ver_2', number: 2 })
        ?.event,
    ).toMatchObject({
      type: 'skill.version-published.v1',
      subject: { skillId: 'skl_1', versionId: 'ver_2' },
      data: { number: 2 },
    });
    expect(
      publish('skill-skl_1', 'SkillActiveVersionSet', {
        skillId: 'skl_1',
        versionId: 'ver_1',
        previousVersionId: 'ver_2',
        reason: 'rollback',
      })?.event,
    ).toMatchObject({
      type: 'skill.active-version-set.v1',
      data: { previousVersionId: 'ver_2', reason: 'rollback' },
    });
  });

  it('tells of a memory proposal without its sealed text, and of a user without their email', () => {
    const proposed = publish('memory-proposal-mpr_1', 'MemoryProposed', {
      proposalId: 'mpr_1',
      agentId: 'agt_1',
      userId: 'usr_1',
      text: { keyId: 'k', ciphertext: 'CIPHERTEXT', iv: 'iv' },
      conversationId: 'cnv_1',
      messageId: 'msg_1',
    });
    expect(proposed?.event).toMatchObject({
      type: 'memory.proposal-created.v1',
      subject: { proposalId: 'mpr_1', agentId: 'agt_1', userId: 'usr_1' },
      data: { conversationId: 'cnv_1', messageId: 'msg_1' },
    });
    expect(JSON.stringify(proposed)).not.toContain('CIPHERTEXT');
    const user = publish('user-usr_1', 'UserRegistered', {
      userId: 'usr_1',
      email: 'ada@example.com',
      name: 'Ada',
      role: 'member',
    });
    expect(user).toMatchObject({
      topic: 'agent-platform.user.v1',
      event: { type: 'user.registered.v1', subject: { userId: 'usr_1' }, data: { role: 'member' } },
    });
    expect(JSON.stringify(user)).not.toMatch(/ada@example\.com|Ada/);
  });

  it('tells of Space memberships: added, role changed, removed; not of the Space itself', () => {
    expect(
      publish('space-spc_1', 'SpaceMemberAdded', { spaceId: 'spc_1', userId: 'usr_2', role: 'editor' }),
    ).toMatchObject({
      topic: 'agent-platform.membership.v1',
      event: {
        type: 'membership.added.v1',
        subject: { spaceId: 'spc_1', userId: 'usr_2' },
        data: { role: 'editor' },
      },
    });
    expect(
      publish('space-spc_1', 'SpaceMemberRoleChanged', { spaceId: 'spc_1', userId: 'usr_2', role: 'member' }),
    ).toMatchObject({ event: { type: 'membership.role-changed.v1', data: { role: 'member' } } });
    expect(publish('space-spc_1', 'SpaceMemberRemoved', { spaceId: 'spc_1', userId: 'usr_2' })).toMatchObject(
      {
        event: { type: 'membership.removed.v1', subject: { spaceId: 'spc_1', userId: 'usr_2' } },
      },
    );
    expect(publish('space-spc_1', 'SpaceRenamed', { spaceId: 'spc_1', name: 'X' })).toBeNull();
  });

  it('publishes nothing for events no context maps', () => {
    expect(publish('conversation-cnv_1', 'UserMessageRecorded', { text: 'hello' })).toBeNull();
  });
});
