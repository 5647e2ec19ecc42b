// Rotating an App's bearer token (admins): a new token answered once; the old one stops at once.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId } from '../../app.events.js';
import { hashAppToken, newAppToken } from '../../app-token.js';

@Requires(manageApps)
export class RotateAppToken extends Command<WriteResult & { readonly token: string }> {
  constructor(
    readonly appId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RotateAppToken)
export class RotateAppTokenHandler implements ICommandHandler<RotateAppToken> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ appId, context }: RotateAppToken) {
    const token = newAppToken();
    const result = await this.aggregates.decide(
      appStreamId(appId),
      appDecider,
      { type: 'RotateAppToken', appId, tokenHash: hashAppToken(token) },
      context,
    );
    return { id: appId, position: result.position, token };
  }
}
