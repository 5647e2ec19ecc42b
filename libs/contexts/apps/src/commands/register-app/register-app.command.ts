// Registering an App (admins): its source, where it is enabled, a new bearer token (answered once, kept hashed), and
// its registry credentials sealed in a stream of their own. Reading its `/meta` (and starting its container) is the
// RefreshApp command the route sends next.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, newEntityId, type CommandContext, type WriteResult } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId, type AppEnablement, type AppSource } from '../../app.events.js';
import type { RegistryCredentials } from '../../app-credentials.events.js';
import { AppCredentialsRepository } from '../../app-credentials.repository.js';
import { hashAppToken, newAppToken } from '../../app-token.js';

export interface RegisterAppInput {
  readonly name: string;
  readonly source: AppSource;
  readonly enablement: AppEnablement;
  readonly registryCredentials?: RegistryCredentials;
}

@Requires(manageApps)
export class RegisterApp extends Command<WriteResult & { readonly token: string }> {
  constructor(
    readonly input: RegisterAppInput,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RegisterApp)
export class RegisterAppHandler implements ICommandHandler<RegisterApp> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly credentials: AppCredentialsRepository,
  ) {}

  async execute({ input, context }: RegisterApp) {
    const appId = newEntityId(context, 'app');
    const token = newAppToken();
    if (input.registryCredentials) await this.credentials.set(appId, input.registryCredentials, context);
    const result = await this.aggregates.decide(
      appStreamId(appId),
      appDecider,
      {
        type: 'RegisterApp',
        appId,
        name: input.name,
        source: input.source,
        enablement: input.enablement,
        tokenHash: hashAppToken(token),
      },
      context,
    );
    return { id: appId, position: result.position, token };
  }
}
