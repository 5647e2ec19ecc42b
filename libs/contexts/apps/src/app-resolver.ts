// What the Apps context's messages ask the one policy, for the gate (#access enforcement): managing Apps is an
// admin's (and the platform's), needing nothing loaded; seeing the Apps of an Agent (its chat's views) reads the Agent
// with its Space.
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '#kernel';
import { ask, type Ask } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { AGENTS, spaceOf, type AgentView } from '#agents';

/** `app.manage`: an admin's (or the platform's). */
export const manageApps = (): Ask => ask('app.manage', null, 'managing Apps needs an admin');

/** Loads what the gate asks about the Agent whose Apps a message reads. */
@Injectable()
export class AppResolver {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  /** `app.view` of the Agent's Apps: 404 when there is no such Agent (an id no Agent can have, too). */
  async view(agentId: string): Promise<Ask> {
    const agent =
      agentId.length <= 128 ? await this.readStore.reader<AgentView>(AGENTS).get(agentId) : undefined;
    if (!agent) throw new NotFoundError('Agent', agentId);
    return ask(
      'app.view',
      { ...agent, space: await spaceOf(this.readStore, agent) },
      `the Apps of Agent '${agent.id}' are not yours to see`,
    );
  }
}
