// Revise a Space's prompt (the prompt library): the gate asks the policy's `prompt.change` (editors); the
// handler checks the prompt is the Space's and runs the prompt decider.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { promptStreamId, type PromptFields } from '../../prompt.js';
import { promptDecider } from '../../prompt.decider.js';
import { SpaceResolver } from '../../../space-resolver.js';
import { promptOf } from '../../prompt-access.js';

@Requires(SpaceResolver, (spaces, { spaceId }: RevisePrompt) => spaces.prompts(spaceId, 'prompt.change'))
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

  async execute({ spaceId, promptId, fields, context }: RevisePrompt): Promise<WriteResult> {
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
