// Erasing code runs (sent by SandboxLifecycleProcess): those of a deleted message's turn, or every run of a deleted
// conversation (`messageId` null): their keys destroyed, their blobs deleted, then CodeRunsErased (SandboxRepository).
// Nothing left to erase is a no-op, so a replay changes nothing. The cause is a fact of the log: the platform acts
// (`platform.step`).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { ask, Requires, type PlatformPrincipal } from '#access';
import { SandboxRepository } from '../../sandbox.repository.js';

@Requires(() => ask('platform.step', null, 'code runs are erased by the platform'))
export class EraseCodeRuns extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly messageId: string | null,
    readonly context: CommandContext,
    readonly principal: PlatformPrincipal,
  ) {
    super();
  }
}

@CommandHandler(EraseCodeRuns)
export class EraseCodeRunsHandler implements ICommandHandler<EraseCodeRuns> {
  constructor(private readonly sandboxes: SandboxRepository) {}

  async execute({ conversationId, messageId, context }: EraseCodeRuns): Promise<WriteResult> {
    return { id: conversationId, position: await this.sandboxes.erase(conversationId, messageId, context) };
  }
}
