// Reading an App's `/meta` again (on registration and on demand; admins): a container App's container is started
// first. Each outcome is recorded: the meta, or the failure as the App's lastError. The App answering badly never
// fails the request; a standalone `/meta` id another App is served under does (409 `app_id_taken`, nothing recorded).
// An MCP server is initialized and listed again, its offer recorded when it changed; one that cannot be read is 422
// `app_unreachable`, and the offer last read stays.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { NotFoundError } from '#kernel';
import { Requires, userIdOf, type Principal } from '#access';
import { manageApps } from '../../app-resolver.js';
import { AppContainers } from '../../app-containers.js';
import { appDecider } from '../../app.decider.js';
import { appStreamId } from '../../app.events.js';
import { fetchAppMeta } from '../../app-meta.js';
import { claimStandaloneId } from '../../app-standalone-id.js';
import { McpServers } from '../../mcp/mcp-servers.js';

@Requires(manageApps)
export class RefreshApp extends Command<WriteResult> {
  constructor(
    readonly appId: string,
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(RefreshApp)
export class RefreshAppHandler implements ICommandHandler<RefreshApp> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly containers: AppContainers,
    private readonly mcp: McpServers,
  ) {}

  async execute({ appId, context, principal }: RefreshApp): Promise<WriteResult> {
    const { state } = await this.aggregates.load(appStreamId(appId), appDecider);
    if (state.status !== 'active') throw new NotFoundError('App', appId);
    const at = () => context.now().toISOString();
    let upstream = state.upstreamUrl;
    let position = 0;
    if (state.source.type === 'mcp') {
      // A server that signs in each person is read with the admin's own account.
      const userId = userIdOf(principal);
      const person = userId ? { userId, context, appName: state.name } : undefined;
      const offer = await this.mcp.inspect(await this.mcp.target(appId, state.source, person));
      return this.aggregates
        .decide(
          appStreamId(appId),
          appDecider,
          { type: 'RecordMcpServerOffer', appId, offer, at: at() },
          context,
        )
        .then(({ position: read }) => ({ id: appId, position: read }));
    }
    if (state.source.type === 'container') {
      const outcome = await this.containers.start(appId, state.source.image, state.source.port);
      const started = await this.aggregates.decide(
        appStreamId(appId),
        appDecider,
        { type: 'RecordAppContainer', appId, outcome, at: at() },
        context,
      );
      position = Math.max(position, started.position);
      if ('error' in outcome) return { id: appId, position };
      upstream = outcome.upstreamUrl;
    }
    const outcome = upstream ? await fetchAppMeta(upstream) : { error: 'the App has no address yet' };
    if ('meta' in outcome) await claimStandaloneId(this.aggregates, appId, outcome.meta, context);
    const read = await this.aggregates.decide(
      appStreamId(appId),
      appDecider,
      { type: 'RecordAppMeta', appId, outcome, at: at() },
      context,
    );
    return { id: appId, position: Math.max(position, read.position) };
  }
}
