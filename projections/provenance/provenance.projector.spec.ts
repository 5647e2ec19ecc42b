import { projectionHarness } from '#testing/projection-harness';
import {
  PROVENANCE_CONVERSATIONS,
  PROVENANCE_USES,
  type ProvenanceConversationView,
  type ProvenanceUseView,
} from '#audit/provenance/provenance.read-model';
import { provenanceProjector } from './provenance.projector.js';

const started = (conversationId: string, userId = 'u1') => ({
  type: 'ConversationStarted',
  data: { conversationId, agentId: 'a1', userId, apiKeyId: 'k1', visibility: 'normal', title: null },
});
const citation = (documentId: string, version: number, start: number, end: number) => ({
  index: 1,
  documentId,
  documentName: `${documentId}.md`,
  documentVersion: version,
  contentHash: `hash-${documentId}-${version}`,
  sectionPath: ['Intro'],
  start,
  end,
  score: 1,
});
const answered = (
  conversationId: string,
  messageId: string,
  sources: ReturnType<typeof citation>[],
  contextItems?: { kind: string; id: string; version: number; versionId?: string }[],
) => ({
  type: 'AssistantMessageRecorded',
  data: {
    conversationId,
    messageId,
    replyTo: `q-${messageId}`,
    content: 'sealed:…',
    citations: sources.filter((source) => source.score > 0),
    status: 'complete',
    finishReason: 'stop',
    usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
    provenance: {
      model: 'm',
      provider: 'p',
      sampling: { temperature: null, topP: null, topK: null },
      agentRevision: 3,
      systemPromptSha256: 'sha-prompt',
      sources,
      toolCalls: [],
      steps: 1,
      checkpointId: null,
      contextProviders: ['knowledge'],
      ...(contextItems ? { contextItems } : {}),
    },
  },
});

describe('provenance projection', () => {
  it('records one row per source version an answer used: documents (passages merged), memories, Skills, the prompt', async () => {
    // d1 is cited (its two passages), d2 was retrieved into the prompt and not cited.
    const h = await projectionHarness(provenanceProjector);
    await h.apply(
      h.envelope(started('c1')),
      h.envelope(
        answered(
          'c1',
          'm1',
          [citation('d1', 2, 0, 10), citation('d1', 2, 20, 30), { ...citation('d2', 1, 5, 9), score: 0 }],
          [
            { kind: 'memory', id: 'mem1', version: 3 },
            { kind: 'skill', id: 'skl1', version: 2, versionId: 'skv_2' },
          ],
        ),
      ),
    );
    const rows = (await h.find<ProvenanceUseView>(PROVENANCE_USES)).data;
    expect(rows.map((row) => row.id).toSorted()).toEqual([
      'm1|document:d1@2',
      'm1|document:d2@1',
      'm1|memory:mem1@3',
      'm1|prompt:a1@sha-prompt',
      'm1|skill:skl1@2',
    ]);
    expect(await h.get<ProvenanceUseView>(PROVENANCE_USES, 'm1|document:d1@2')).toMatchObject({
      source: 'document:d1',
      documentName: 'd1.md',
      contentHash: 'hash-d1-2',
      passages: [
        { start: 0, end: 10, sectionPath: ['Intro'] },
        { start: 20, end: 30, sectionPath: ['Intro'] },
      ],
      conversationId: 'c1',
      messageId: 'm1',
      agentId: 'a1',
      userId: 'u1',
      cited: true,
      messageDeleted: false,
    });
    expect(await h.get<ProvenanceUseView>(PROVENANCE_USES, 'm1|document:d2@1')).toMatchObject({
      cited: false,
      passages: [{ start: 5, end: 9, sectionPath: ['Intro'] }],
    });
    expect(await h.get<ProvenanceUseView>(PROVENANCE_USES, 'm1|skill:skl1@2')).toMatchObject({
      versionId: 'skv_2',
    });
  });

  it('keeps the rows when the message or the conversation is deleted, marked, and is idempotent on replay', async () => {
    const h = await projectionHarness(provenanceProjector);
    const answer = h.envelope(answered('c1', 'm1', [citation('d1', 1, 0, 10)]));
    await h.apply(h.envelope(started('c1')), answer);
    await h.apply(answer);
    expect(await h.count(PROVENANCE_USES)).toBe(2);
    await h.apply(h.envelope({ type: 'MessageDeleted', data: { conversationId: 'c1', messageId: 'm1' } }));
    expect((await h.get<ProvenanceUseView>(PROVENANCE_USES, 'm1|document:d1@1'))!.messageDeleted).toBe(true);
    await h.apply(
      h.envelope({ type: 'ConversationDeleted', data: { conversationId: 'c1', reason: 'requested' } }),
    );
    expect(await h.get<ProvenanceConversationView>(PROVENANCE_CONVERSATIONS, 'c1')).toEqual({
      id: 'c1',
      agentId: 'a1',
      userId: 'u1',
      deleted: true,
    });
    expect(await h.count(PROVENANCE_USES)).toBe(2);
  });
});
