// What produced one answer: model, provider, sampling, the Agent's revision, every source retrieved (document,
// version, content hash, section, score), every tool call (its arguments opened with the message's key).
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { ConversationResolver } from '../../conversation-resolver.js';
import { ConversationDirectory } from '../../conversation-directory.js';
import { MessageNotFoundError } from '../../conversation.decider.js';
import type { ProvenanceDto } from '../../conversation.schemas.js';

/** A view's result as JSON again (null once erased). */
const parsed = (result: string | null | undefined): unknown => {
  try {
    return result ? (JSON.parse(result) as unknown) : null;
  } catch {
    return null;
  }
};

@Requires(ConversationResolver, (conversations, { agentId, conversationId }: GetProvenance) =>
  conversations.owned(agentId, conversationId),
)
export class GetProvenance extends Query<z.output<typeof ProvenanceDto>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly messageId: string,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetProvenance)
export class GetProvenanceHandler implements IQueryHandler<GetProvenance> {
  constructor(private readonly directory: ConversationDirectory) {}

  async execute({ agentId, conversationId, messageId }: GetProvenance) {
    const owned = await this.directory.owned(agentId, conversationId);
    const message = await owned.reads.message(messageId);
    if (!message?.provenance) throw new MessageNotFoundError(messageId);
    const { provenance } = message;
    const [args, viewResults] = await Promise.all([
      owned.reads.toolArguments(message),
      owned.reads.toolViewResults(message),
    ]);
    return {
      messageId,
      conversationId: owned.record.id,
      ...provenance,
      sources: [...provenance.sources],
      contextProviders: [...provenance.contextProviders],
      contextItems: (provenance.contextItems ?? []).map((item) => ({ ...item })),
      toolCalls: provenance.toolCalls.map(({ view, ...call }, i) => ({
        ...call,
        sources: [...call.sources],
        arguments: args[i] ?? null,
        ...(view ? { view: { appId: view.appId, uri: view.uri, result: parsed(viewResults[i]) } } : {}),
      })),
      status: message.status,
      usage: message.usage ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 },
      createdAt: message.createdAt,
    };
  }
}
