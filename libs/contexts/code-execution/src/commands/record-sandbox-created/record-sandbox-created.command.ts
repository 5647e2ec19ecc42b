// A conversation's sandbox was made (sent by CodeRuns on its first run in this process), with the Agent's Skills it
// holds. A sandbox recorded active already is a no-op (the decider's). The turn was authorized by its conversation.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext, WriteResult } from '#eventsourcing';
import { AskedAtRoute } from '#access';
import type { SandboxSkill } from '../../sandbox.events.js';
import { SandboxRepository } from '../../sandbox.repository.js';

@AskedAtRoute(
  'no route sends it: CodeRuns records what a turn its conversation route authorized ran (no principal)',
)
export class RecordSandboxCreated extends Command<WriteResult> {
  constructor(
    readonly conversationId: string,
    readonly agentId: string,
    readonly sandboxId: string,
    readonly skills: readonly SandboxSkill[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(RecordSandboxCreated)
export class RecordSandboxCreatedHandler implements ICommandHandler<RecordSandboxCreated> {
  constructor(private readonly sandboxes: SandboxRepository) {}

  async execute({ conversationId, agentId, sandboxId, skills, context }: RecordSandboxCreated) {
    const position = await this.sandboxes.decide(
      { type: 'RecordSandboxCreated', data: { conversationId, agentId, sandboxId, skills } },
      context,
    );
    return { id: sandboxId, position };
  }
}
