// A run_code call ran (sent by CodeRuns once the sandbox answered): recorded with its code, output and kept-file
// list sealed (SandboxRepository). A call id recorded already is a no-op. The turn was authorized by its conversation.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { AskedAtRoute } from '#access';
import { SandboxRepository, type RunRecord } from '../../sandbox.repository.js';

@AskedAtRoute(
  'no route sends it: CodeRuns records what a turn its conversation route authorized ran (no principal)',
)
export class RecordCodeRun extends Command<WriteResult> {
  constructor(
    readonly run: RunRecord,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordCodeRun)
export class RecordCodeRunHandler implements ICommandHandler<RecordCodeRun> {
  constructor(private readonly sandboxes: SandboxRepository) {}

  async execute({ run, context }: RecordCodeRun): Promise<WriteResult> {
    return { id: run.callId, position: await this.sandboxes.recordRun(run, context) };
  }
}
