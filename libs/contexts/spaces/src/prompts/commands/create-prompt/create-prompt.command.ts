// Create a Space's prompt (the prompt library): the handler authorizes through the loader (the policy's
// `prompt.change`: editors) and runs the prompt decider.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import type { Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { promptStreamId, type PromptFields } from '../../prompt.js';
import { promptDecider } from '../../prompt.decider.js';
import { promptSpace } from '../../prompt-access.js';

export class CreatePrompt extends Command<WriteResult> {
  constructor(
    readonly spaceId: string,
    readonly fields: PromptFields,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(CreatePrompt)
export class CreatePromptHandler implements ICommandHandler<CreatePrompt> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ spaceId, fields, context, principal }: CreatePrompt): Promise<WriteResult> {
    await promptSpace(this.readStore, spaceId, principal, 'prompt.change');
    const promptId = newEntityId(context, 'prm');
    const result = await this.aggregates.decide(
      promptStreamId(promptId),
      promptDecider,
      { type: 'CreatePrompt', promptId, spaceId, ...fields },
      context,
    );
    return { id: promptId, position: result.position };
  }
}
