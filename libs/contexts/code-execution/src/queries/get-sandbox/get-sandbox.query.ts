// A conversation's sandbox state (spec: "Conversation code execution state — tracked per conversation"): created,
// the Skills placed in it, every call (code, exit status, duration, capped output, files), and when and why it was
// destroyed. Only the conversation's user sees it, through the same access check as the conversation routes. An
// erased call (its message deleted) is not shown.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { AgentResolver } from '#agents';
import { ConversationDirectory } from '#conversations';
import { Requires, type Caller } from '#access';
import { ContentCipher } from '#key-store';
import { NotFoundError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { CONVERSATION_SANDBOXES, type SandboxView } from '../../sandbox.read-model.js';
import { openCallFiles } from '../sandbox-files.js';

// The conversation is then the caller's own or 404 (the ConversationDirectory finds only the caller's).
@Requires(AgentResolver, (agents, { agentId }: GetSandbox) => agents.use(agentId))
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
    const files = await openCallFiles(this.cipher, view.calls);
    return {
      conversationId: view.id,
      state: view.state,
      skills: view.skills,
      // A call whose key is gone was erased with its message (the read model drops it as the erasure is applied).
      calls: view.calls.flatMap(
        ({ sealedFiles: _sealed, blobIds: _blobIds, answerId: _answer, ...call }, i) => {
          const code = opened[2 * i] ?? null;
          const callFiles = files[i];
          if (code === null || !callFiles) return [];
          return [{ ...call, code, output: opened[2 * i + 1] ?? null, files: callFiles }];
        },
      ),
      createdAt: view.createdAt,
      lastUsedAt: view.lastUsedAt,
      rebuiltAt: view.rebuiltAt,
      destroyedAt: view.destroyedAt,
      destroyReason: view.destroyReason,
    };
  }
}
