// Deleting an App (admins): its token stops at once, its allowlist goes (the allowlist process), its registry
// credentials are removed.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId } from '../../app.events.js';
import { AppCredentialsRepository } from '../../app-credentials.repository.js';

@Requires(manageApps)
export class DeleteApp extends Command<WriteResult> {
  constructor(
    readonly appId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(DeleteApp)
export class DeleteAppHandler implements ICommandHandler<DeleteApp> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly credentials: AppCredentialsRepository,
  ) {}

  async execute({ appId, context }: DeleteApp): Promise<WriteResult> {
    const result = await this.aggregates.decide(
      appStreamId(appId),
      appDecider,
      { type: 'DeleteApp', appId },
      context,
    );
    await this.credentials.remove(appId, context);
    return { id: appId, position: result.position };
  }
}
