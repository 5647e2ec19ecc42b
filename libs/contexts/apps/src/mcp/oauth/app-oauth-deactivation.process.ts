// Process manager: a deactivated person's OAuth connections to MCP Apps are erased — each one's data key destroyed
// (their sealed tokens, and a pending authorization's verifier, unreadable in every copy of the log) and the
// connection ended, as `DELETE /apps/{appId}/oauth/connection` ends it. It keeps, in its own checkpointed state, the
// Apps each person began a connection to (one document per person and App) and who is deactivated now, so a
// connection completed after the deactivation (a callback already under way) is erased as it appears. The key is
// destroyed before the disconnection is recorded: a replay after a crash between the two destroys nothing more and
// records it then; the events' ids derive from their cause, so a replay appends nothing twice.
import { Inject, Injectable } from '@nestjs/common';
import {
  AggregateRepository,
  causedBy,
  childIndex,
  defineProcess,
  type EventHandlers,
  type ProjectionContext,
} from '#eventsourcing';
import type { UserEvent } from '#identity';
import type { EventEnvelope } from '#kernel';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { WriteOp } from '#read-store';
import type { AppEvent } from '../../app.events.js';
import { AppOAuthErasure } from './app-oauth-erasure.repository.js';
import type { AppOAuthEvent } from './app-oauth.events.js';

type Read = Extract<
  AppOAuthEvent | UserEvent | AppEvent,
  {
    type:
      | 'AppOAuthAuthorizationStarted'
      | 'AppOAuthAccountConnected'
      | 'UserDeactivated'
      | 'UserReactivated'
      | 'AppDeleted';
  }
>;

export const APP_OAUTH_DEACTIVATION_PROCESS = 'app-oauth-deactivation-process';
/** Person → the Apps they began a connection to. */
const connections = childIndex('pm_app_oauth_people');
const DEACTIVATED = 'pm_app_oauth_deactivated';

@Injectable()
export class AppOAuthDeactivationProcess extends defineProcess<Read>({
  name: APP_OAUTH_DEACTIVATION_PROCESS,
  version: 1,
  collections: [connections.collection, { name: DEACTIVATED }],
}) {
  private readonly oauth: AppOAuthErasure;

  constructor(aggregates: AggregateRepository, @Inject(KEY_STORE) keys: KeyStore) {
    super();
    this.oauth = new AppOAuthErasure(aggregates, keys);
  }

  readonly on: EventHandlers<Read> = {
    AppOAuthAuthorizationStarted: ({ data }, context) => connections.add(context, data.userId, data.appId),
    AppOAuthAccountConnected: async (event, context) => {
      const { userId, appId } = event.data;
      if (await context.get(DEACTIVATED, userId)) await this.erase(appId, userId, event);
      return connections.add(context, userId, appId);
    },
    UserDeactivated: (event, context) => this.deactivated(event, context),
    UserReactivated: async ({ data }, context) =>
      (await context.get(DEACTIVATED, data.userId))
        ? [{ kind: 'delete', collection: DEACTIVATED, id: data.userId }]
        : [],
    // The App's deletion destroys every person's keys of it (its key group): nothing is left to erase here.
    AppDeleted: ({ data }, context) => connections.remove(context, data.appId),
  };

  private async deactivated(event: EventEnvelope, context: ProjectionContext): Promise<WriteOp[]> {
    const { userId } = event.data as { userId: string };
    const ops: WriteOp[] = [{ kind: 'upsert', collection: DEACTIVATED, doc: { id: userId } }];
    await connections.each(context, { ownerId: userId }, async (member) => {
      await this.erase(member.childId, userId, event);
    });
    return ops;
  }

  private erase(appId: string, userId: string, cause: EventEnvelope): Promise<void> {
    return this.oauth.erase(appId, userId, causedBy(cause, `${appId}:${userId}`));
  }
}
