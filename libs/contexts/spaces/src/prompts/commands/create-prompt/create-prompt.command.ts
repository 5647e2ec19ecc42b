// Create a Space's prompt (the prompt library): the gate asks the policy's `prompt.change` (editors); the handler
// runs the prompt decider.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { promptStreamId, type PromptFields } from '../../prompt.js';
import { promptDecider } from '../../prompt.decider.js';
import { SpaceResolver } from '../../../space-resolver.js';

@Requires(SpaceResolver, (spaces, { spaceId }: CreatePrompt) => spaces.prompts(spaceId, 'prompt.change'))
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
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ spaceId, fields, context }: CreatePrompt): Promise<WriteResult> {
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
