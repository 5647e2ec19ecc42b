// What produced one answer: model, provider, sampling, the Agent's revision, every source retrieved (document,
// version, content hash, section, score), every tool call (its arguments opened with the message's key).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Caller } from '#identity';
import { ContentCipher } from '#key-store';
import { ConversationDirectory } from '../../conversation-directory.js';
import { MessageNotFoundError } from '../../conversation.decider.js';
import type { PlainMessage } from '../../conversation-records.js';
import type { ProvenanceDto } from '../../conversation.schemas.js';

export class GetProvenance extends Query<z.output<typeof ProvenanceDto>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly messageId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetProvenance)
export class GetProvenanceHandler implements IQueryHandler<GetProvenance> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly cipher: ContentCipher,
  ) {}

  async execute({ agentId, conversationId, messageId, caller }: GetProvenance) {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    const message: PlainMessage | null =
      owned.kind === 'stored'
        ? await this.directory.stored.message(owned.record.id, messageId)
        : (owned.live.messages.find((candidate) => candidate.id === messageId) ?? null);
    if (!message?.provenance) throw new MessageNotFoundError(messageId);
    const { provenance } = message;
    const args =
      owned.kind === 'stored'
        ? await this.cipher.openMany(provenance.toolCalls.map((call) => call.arguments))
        : provenance.toolCalls.map((call) => call.arguments);
    return {
      messageId,
      conversationId: owned.record.id,
      ...provenance,
      sources: [...provenance.sources],
      contextProviders: [...provenance.contextProviders],
      contextItems: (provenance.contextItems ?? []).map((item) => ({ ...item })),
      toolCalls: provenance.toolCalls.map((call, i) => ({
        ...call,
        sources: [...call.sources],
        arguments: args[i] ?? null,
      })),
      status: message.status,
      usage: message.usage ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
      createdAt: message.createdAt,
    };
  }
}
