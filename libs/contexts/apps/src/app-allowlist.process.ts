// Process manager: the allowlist of every App, one document per (App, Agent) it may reach (Apps rule 3). An App
// enabled for chosen Agents reaches those that exist; a globally enabled App reaches every Agent, personal ones
// included, and this process adds each Agent created after it at once and removes each deleted one, so a new Agent
// is reachable by a global App without a step and a deleted one at once is not. Its state is its own documents:
// the live Agents it has seen and the Apps' enablement, read page by page (never an id array growing with the owner).
import { Injectable } from '@nestjs/common';
import { defineProcess, type EnvelopeOf, type EventHandlers, type ProjectionContext } from '#eventsourcing';
import type { Page, WriteOp } from '#read-store';
import type { AgentEvent } from '#agents';
import type { AppEnablement, AppEvent } from './app.events.js';
import { APP_ALLOWLIST, allowlistEntryId, type AppAllowlistEntry } from './apps.read-model.js';

type Read = Extract<
  AgentEvent | AppEvent,
  { type: 'AgentCreated' | 'AgentDeleted' | 'AppRegistered' | 'AppEnablementChanged' | 'AppDeleted' }
>;

const KNOWN_AGENTS = 'app_allowlist_agents';
const APP_ENABLEMENT = 'app_allowlist_apps';
const PAGE = 500;

interface EnablementDoc {
  readonly id: string;
  readonly global: boolean;
}

export const APP_ALLOWLIST_PROCESS = 'app-allowlist-process';

@Injectable()
export class AppAllowlistProcess extends defineProcess<Read>({
  name: APP_ALLOWLIST_PROCESS,
  version: 1,
  collections: [
    { name: APP_ALLOWLIST, indexes: [{ fields: ['appId'] }, { fields: ['agentId'] }] },
    { name: KNOWN_AGENTS },
    { name: APP_ENABLEMENT, indexes: [{ fields: ['global'] }] },
  ],
}) {
  readonly on: EventHandlers<Read> = {
    AgentCreated: (event, context) => this.agentCreated(event.data.agentId, context),
    AgentDeleted: (event, context) => this.agentDeleted(event.data.agentId, context),
    AppRegistered: (event, context) => this.enable(event.data.appId, event.data.enablement, context),
    AppEnablementChanged: (event, context) => this.enable(event.data.appId, event.data.enablement, context),
    AppDeleted: (event, context) => this.appDeleted(event, context),
  };

  private async agentCreated(agentId: string, context: ProjectionContext): Promise<WriteOp[]> {
    const ops: WriteOp[] = [{ kind: 'upsert', collection: KNOWN_AGENTS, doc: { id: agentId } }];
    await this.pages<EnablementDoc>(context, APP_ENABLEMENT, { global: true }, (app) =>
      ops.push(entry(app.id, agentId)),
    );
    return ops;
  }

  private async agentDeleted(agentId: string, context: ProjectionContext): Promise<WriteOp[]> {
    const ops: WriteOp[] = [{ kind: 'delete', collection: KNOWN_AGENTS, id: agentId }];
    await this.pages<AppAllowlistEntry>(context, APP_ALLOWLIST, { agentId }, (held) =>
      ops.push({ kind: 'delete', collection: APP_ALLOWLIST, id: held.id }),
    );
    return ops;
  }

  private async enable(
    appId: string,
    enablement: AppEnablement,
    context: ProjectionContext,
  ): Promise<WriteOp[]> {
    const global = enablement.kind === 'global';
    const ops: WriteOp[] = [{ kind: 'upsert', collection: APP_ENABLEMENT, doc: { id: appId, global } }];
    const wanted = new Set<string>();
    if (global) await this.pages<{ id: string }>(context, KNOWN_AGENTS, {}, (agent) => wanted.add(agent.id));
    else
      for (const agentId of enablement.agentIds)
        if (await context.get(KNOWN_AGENTS, agentId)) wanted.add(agentId);
    await this.pages<AppAllowlistEntry>(context, APP_ALLOWLIST, { appId }, (held) => {
      if (!wanted.delete(held.agentId)) ops.push({ kind: 'delete', collection: APP_ALLOWLIST, id: held.id });
    });
    for (const agentId of wanted) ops.push(entry(appId, agentId));
    return ops;
  }

  private async appDeleted(event: EnvelopeOf<Read, 'AppDeleted'>, context: ProjectionContext) {
    const ops: WriteOp[] = [{ kind: 'delete', collection: APP_ENABLEMENT, id: event.data.appId }];
    await this.pages<AppAllowlistEntry>(context, APP_ALLOWLIST, { appId: event.data.appId }, (held) =>
      ops.push({ kind: 'delete', collection: APP_ALLOWLIST, id: held.id }),
    );
    return ops;
  }

  private async pages<T extends { id: string }>(
    context: ProjectionContext,
    collection: string,
    filter: Record<string, string | boolean>,
    each: (doc: T) => unknown,
  ): Promise<void> {
    let cursor: string | null = null;
    do {
      const page: Page<T> = await context.find<T>(collection, filter, { limit: PAGE, cursor });
      page.data.forEach(each);
      cursor = page.nextCursor;
    } while (cursor);
  }
}

const entry = (appId: string, agentId: string): WriteOp => ({
  kind: 'upsert',
  collection: APP_ALLOWLIST,
  doc: { id: allowlistEntryId(appId, agentId), appId, agentId },
});
