// A conversation's sandbox state (spec: "Conversation code execution state — tracked per conversation"): created,
// the Skills placed in it, every call (code, exit status, duration, capped output, files), and when and why it was
// destroyed. Only the conversation's user sees it, through the same access check as the conversation routes.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ConversationDirectory } from '#conversations';
import type { Caller } from '#identity';
import { ContentCipher } from '#key-store';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { CONVERSATION_SANDBOXES, type SandboxView } from '../../sandbox.read-model.js';

export class GetSandbox extends Query<Record<string, unknown>> {
  constructor(
    readonly agentId: string,
    readonly conversationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSandbox)
export class GetSandboxHandler implements IQueryHandler<GetSandbox> {
  constructor(
    private readonly directory: ConversationDirectory,
    private readonly cipher: ContentCipher,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ agentId, conversationId, caller }: GetSandbox) {
    const owned = await this.directory.owned(agentId, conversationId, caller);
    const view = await this.readStore.reader<SandboxView>(CONVERSATION_SANDBOXES).get(owned.record.id);
    if (!view) throw new NotFoundError('Sandbox', conversationId);
    const opened = await this.cipher.openMany(view.calls.flatMap((call) => [call.code, call.output]));
    return {
      conversationId: view.id,
      state: view.state,
      skills: view.skills,
      calls: view.calls.map((call, i) => ({
        ...call,
        code: opened[2 * i] ?? null,
        output: opened[2 * i + 1] ?? null,
      })),
      createdAt: view.createdAt,
      lastUsedAt: view.lastUsedAt,
      rebuiltAt: view.rebuiltAt,
      destroyedAt: view.destroyedAt,
      destroyReason: view.destroyReason,
    };
  }
}
