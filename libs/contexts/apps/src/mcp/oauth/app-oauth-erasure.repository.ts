// A person's OAuth connection to an MCP App erased for good (their deactivation): the connection's data key destroyed
// first, then the disconnection recorded, so a replay after a crash between the two destroys nothing more and records
// it then. Made by the deactivation process from the stores it is given (it runs where the Apps' module may not).
import type { AggregateRepository, CommandContext } from '#eventsourcing';
import type { KeyStore } from '#key-store';
import { appOAuthDecider } from './app-oauth.decider.js';
import { appOAuthKeyId, appOAuthStreamId } from './app-oauth.events.js';

export class AppOAuthErasure {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly keys: KeyStore,
  ) {}

  async erase(appId: string, userId: string, context: CommandContext): Promise<void> {
    const stream = appOAuthStreamId(appId, userId);
    const { state } = await this.aggregates.load(stream, appOAuthDecider);
    await this.keys.destroy(appOAuthKeyId(appId, userId, state.generation));
    await this.aggregates.decide(
      stream,
      appOAuthDecider,
      { type: 'DisconnectAppOAuth', appId, userId },
      context,
    );
  }
}
