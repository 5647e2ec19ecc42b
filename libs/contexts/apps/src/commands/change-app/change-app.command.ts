// Renaming an App, or enabling it for other Agents or globally (admins); the allowlist process follows.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId, type AppEnablement } from '../../app.events.js';

@Requires(manageApps)
export class ChangeApp extends Command<WriteResult> {
  constructor(
    readonly appId: string,
    readonly change: { readonly name?: string; readonly enablement?: AppEnablement },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeApp)
export class ChangeAppHandler implements ICommandHandler<ChangeApp> {
  constructor(private readonly aggregates: AggregateRepository) {}

  async execute({ appId, change, context }: ChangeApp): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      appStreamId(appId),
      appDecider,
      { type: 'ChangeApp', appId, ...change },
      context,
    );
    return { id: appId, position: result.position };
  }
}
