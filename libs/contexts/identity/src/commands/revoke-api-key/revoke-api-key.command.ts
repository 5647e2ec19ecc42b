// Revoking an API key (admins; the system for a rotated bootstrap key).
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { AggregateRepository, type WriteResult } from '#eventsourcing';
import { apiKeyDecider } from '../../api-key.decider.js';
import { apiKeyStreamId } from '../../api-key.events.js';
import { Requires, type Principal } from '#access';
import { manageKeys } from '../../api-key-resolver.js';

@Requires(manageKeys)
export class RevokeApiKey extends Command<WriteResult> {
  constructor(
    readonly apiKeyId: string,
    readonly context: CommandContext,
    /** The admin revoking it; the platform for a rotated bootstrap key and for a user's own key (checked before). */
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ apiKeyId, context }: RevokeApiKey): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      apiKeyStreamId(apiKeyId),
      apiKeyDecider,
      { type: 'RevokeApiKey', apiKeyId },
      context,
    );
    return { id: apiKeyId, position: result.position };
  }
}
