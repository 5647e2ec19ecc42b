// Where an App's synced documents live — an Agent's own Knowledge, a Space's, or the Global one — and the Agent each
// write goes through. Knowledge is written through an Agent (the Knowledge commands ask the policy about that Agent
// and the scope), so a Space's document is imported through an Agent of that Space the App is enabled for, and a
// Global one only from an App enabled for every Agent, through one of its non-personal Agents. An App reaches only the
// Knowledge its Agents read: a Space none of whose Agents has the App takes none of its documents.
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '#kernel';
import { AGENTS, type AgentView } from '#agents';
import type { DocumentView } from '#knowledge';
import { READ_STORE, type ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import type { AppEnablement } from '../../app.events.js';
import { APP_ALLOWLIST, allowlistEntryId, type AppAllowlistEntry } from '../../apps.read-model.js';

export type SyncedPlace =
  | { readonly scope: 'agent'; readonly agentId: string }
  | { readonly scope: 'space'; readonly spaceId: string }
  | { readonly scope: 'global' };

const PAGE = 200;

const notEnabled = (message: string, field: string) => new ValidationError('app_not_enabled', message, field);

@Injectable()
export class SyncedDocumentPlaces {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** The Agent an import into the place goes through; 400 `app_not_enabled` where the App does not reach. */
  async importThrough(appId: string, enablement: AppEnablement, place: SyncedPlace): Promise<string> {
    if (place.scope === 'agent') {
      if (!(await this.enabled(appId, place.agentId)))
        throw notEnabled(`the App '${appId}' is not enabled for the Agent '${place.agentId}'`, 'agentId');
      return place.agentId;
    }
    if (place.scope === 'space') {
      const space = await this.readStore.reader<SpaceView>(SPACES).get(place.spaceId);
      if (!space) throw new NotFoundError('Space', place.spaceId);
      const through = await this.agentOfSpace(place.spaceId, appId);
      if (!through)
        throw notEnabled(`the App '${appId}' is not enabled for any Agent of the Space`, 'spaceId');
      return through;
    }
    if (enablement.kind !== 'global')
      throw notEnabled(`a Global document comes from an App enabled for every Agent`, 'scope');
    const through = await this.sharedAgentOf(appId);
    if (!through) throw notEnabled('no Agent of a Space has the App yet', 'scope');
    return through;
  }

  /** The Agent a synced document is changed or removed through; null when none is left to go through. */
  async syncThrough(appId: string, document: DocumentView): Promise<string | null> {
    if (document.scope === 'agent') return document.ownerId;
    if (document.scope === 'space') return this.agentOfSpace(document.ownerId, null);
    return this.sharedAgentOf(appId);
  }

  private async enabled(appId: string, agentId: string): Promise<boolean> {
    const entry = await this.readStore
      .reader<AppAllowlistEntry>(APP_ALLOWLIST)
      .get(allowlistEntryId(appId, agentId));
    return entry !== null && entry !== undefined;
  }

  /** An Agent of the Space (one the App is enabled for, when `appId` is given), the first by id. */
  private async agentOfSpace(spaceId: string, appId: string | null): Promise<string | null> {
    const agents = this.readStore.reader<AgentView>(AGENTS);
    let cursor: string | null = null;
    const found: string[] = [];
    do {
      const page = await agents.find({ spaceId }, { limit: PAGE, cursor });
      for (const agent of page.data)
        if (appId === null || (await this.enabled(appId, agent.id))) found.push(agent.id);
      cursor = page.nextCursor;
    } while (cursor);
    return found.sort()[0] ?? null;
  }

  /** A non-personal Agent the App reaches (every Agent reads Global documents): the first its allowlist holds. */
  private async sharedAgentOf(appId: string): Promise<string | null> {
    const allowlist = this.readStore.reader<AppAllowlistEntry>(APP_ALLOWLIST);
    const agents = this.readStore.reader<AgentView>(AGENTS);
    let cursor: string | null = null;
    do {
      const page = await allowlist.find({ appId }, { limit: PAGE, cursor });
      for (const entry of page.data) {
        const agent = await agents.get(entry.agentId);
        if (agent && !agent.isPersonal && agent.spaceId) return agent.id;
      }
      cursor = page.nextCursor;
    } while (cursor);
    return null;
  }
}
