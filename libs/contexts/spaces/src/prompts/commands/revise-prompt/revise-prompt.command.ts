// Revise a Space's prompt (the prompt library): the handler authorizes through the loader (the policy's
// `prompt.change`: editors) and runs the prompt decider.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { promptStreamId, type PromptFields } from '../../prompt.js';
import { promptDecider } from '../../prompt.decider.js';
import { promptOf, promptSpace } from '../../prompt-access.js';

export class RevisePrompt extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly promptId: string,
    readonly fields: Partial<PromptFields>,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RevisePrompt)
export class RevisePromptHandler implements ICommandHandler<RevisePrompt> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ spaceId, promptId, fields, context, principal }: RevisePrompt): Promise<WriteResult> {
    await promptSpace(this.readStore, spaceId, principal, 'prompt.change');
    await promptOf(this.readStore, spaceId, promptId);
    const result = await this.aggregates.decide(
      promptStreamId(promptId),
      promptDecider,
      { type: 'RevisePrompt', promptId, ...fields },
      context,
    );
    return { id: promptId, position: result.position };
  }
}
