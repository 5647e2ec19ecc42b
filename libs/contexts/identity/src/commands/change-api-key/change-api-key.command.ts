// Changing an API key's name, Agent grants or usage limit (admins).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { apiKeyDecider, type ApiKeyCommand } from '../../api-key.decider.js';
import { apiKeyStreamId } from '../../api-key.events.js';
import { Requires, type Principal } from '#access';
import { manageKeys } from '../../api-key-resolver.js';

@Requires(manageKeys)
export class ChangeApiKey extends Command<WriteResult> {
  constructor(
    readonly input: Omit<Extract<ApiKeyCommand, { type: 'ChangeApiKey' }>, 'type'>,
    readonly context: CommandContext,
    /** The admin changing it (or the platform). */
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeApiKey)
export class ChangeApiKeyHandler implements ICommandHandler<ChangeApiKey> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ input, context }: ChangeApiKey): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      apiKeyStreamId(input.apiKeyId),
      apiKeyDecider,
      { type: 'ChangeApiKey', ...input },
      context,
    );
    return { id: input.apiKeyId, position: result.position };
  }
}
