// An App's documents in Knowledge (admins): importing one (an MCP resource, a URL App's declared text) as a synced
// document of an Agent, a Space or the Global Knowledge, and syncing every document synced from the App
// (mcp/knowledge/app-resources.ts). The Knowledge commands they send are asked again,
// as the admin, by the gate.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#eventsourcing';
import { Requires, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { AppResources, type SyncOutcome } from '../../mcp/knowledge/app-resources.js';
import type { SyncedPlace } from '../../mcp/knowledge/synced-document-places.js';

@Requires(manageApps)
export class ImportAppResource extends Command<{ readonly documentId: string }> {
  constructor(
    readonly appId: string,
    readonly request: {
      readonly place: SyncedPlace;
      readonly uri: string;
      readonly name?: string | undefined;
    },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@Requires(manageApps)
export class SyncAppResources extends Command<readonly SyncOutcome[]> {
  constructor(
    readonly appId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ImportAppResource)
export class ImportAppResourceHandler implements ICommandHandler<ImportAppResource> {
  constructor(private readonly resources: AppResources) {}

  async execute({ appId, request, context, principal }: ImportAppResource) {
    return { documentId: await this.resources.import(appId, request, context, principal) };
  }
}

@CommandHandler(SyncAppResources)
export class SyncAppResourcesHandler implements ICommandHandler<SyncAppResources> {
  constructor(private readonly resources: AppResources) {}

  execute({ appId, context, principal }: SyncAppResources) {
    return this.resources.sync(appId, context, principal);
  }
}
