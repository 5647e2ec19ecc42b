// Destroying a conversation's sandbox (sent by the sweeper for an idle or too old one, and by
// SandboxLifecycleProcess for a deleted conversation): the reason goes into the log first, then the sandbox and its
// files go (CodeRuns.release). Destroying one destroyed already records nothing. The platform acts
// (`platform.step`): the cause is a timeout or a fact of the log.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { ask, Requires, type PlatformPrincipal } from '#access';
import { CodeRuns } from '../../code-runs.js';
import { SandboxRepository } from '../../sandbox.repository.js';

@Requires(() => ask('platform.step', null, 'sandboxes are destroyed by the platform'))
export class DestroySandbox extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly reason: 'idle_timeout' | 'hard_timeout' | 'conversation_deleted',
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(DestroySandbox)
export class DestroySandboxHandler implements ICommandHandler<DestroySandbox> {
  constructor(
    private readonly sandboxes: SandboxRepository,
    private readonly runs: CodeRuns,
  ) {}

  async execute({ conversationId, reason, context }: DestroySandbox): Promise<WriteResult> {
    const position = await this.sandboxes.decide(
      { type: 'RecordSandboxDestroyed', data: { conversationId, reason } },
      context,
    );
    await this.runs.release(conversationId);
    return { id: this.runs.sandboxIdOf(conversationId), position };
  }
}
