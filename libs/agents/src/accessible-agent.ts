// The Agent a route names, if the caller may use it: 404 when there is no such Agent, 403 when the caller's key does
// not reach it. Every agent-scoped route starts here. A route that changes the Agent (or what its Space shares)
// starts at manageableAgent instead: using an Agent is not managing it. The rules are the policy's (`agent.use`,
// `agent.manage` in #identity authorization/policy.ts); these load the Agent and its Space and raise the HTTP errors.
import { ForbiddenError, NotFoundError } from '#kernel';
import type { Caller } from '#identity';
import { assertAgentAccess, canManageAgent } from '#identity';
import type { ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { AGENTS, type AgentView } from './agents.read-model.js';

export async function accessibleAgent(
  readStore: ReadStore,
  agentId: string,
  caller: Caller,
): Promise<AgentView> {
  const agent = await readStore.reader<AgentView>(AGENTS).get(agentId);
  if (!agent) throw new NotFoundError('Agent', agentId);
  assertAgentAccess(caller, { ...agent, space: await spaceOf(readStore, agent) });
  return agent;
}

/** The Agent's Space with its members (what `agent.use` reads for the caller's role); null when none or gone. */
export async function spaceOf(
  readStore: ReadStore,
  agent: Pick<AgentView, 'spaceId'>,
): Promise<SpaceView | null> {
  return agent.spaceId ? ((await readStore.reader<SpaceView>(SPACES).get(agent.spaceId)) ?? null) : null;
}

/** Whether the caller manages this Agent (one it reaches): the access policy's rule, with the Agent's Space read. */
export async function managesAgent(readStore: ReadStore, agent: AgentView, caller: Caller): Promise<boolean> {
  const space = await spaceOf(readStore, agent);
  return canManageAgent(caller, { ...agent, space }, space);
}

/** 403 `space_change_denied` unless the caller manages the Agent. */
export async function assertManagesAgent(
  readStore: ReadStore,
  agent: AgentView,
  caller: Caller,
): Promise<void> {
  if (!(await managesAgent(readStore, agent, caller))) throw manageDenied(agent);
}

/** The 403 `space_change_denied` of a caller that uses the Agent but may not manage it. */
export const manageDenied = (agent: Pick<AgentView, 'id' | 'spaceId'>): ForbiddenError =>
  new ForbiddenError(
    'space_change_denied',
    agent.spaceId
      ? `this API key may use Agent '${agent.id}' but not manage it: that needs the right to change its Space '${agent.spaceId}'`
      : `only admins manage Agent '${agent.id}'`,
  );

/** The Agent, if the caller may use (404/403 as accessibleAgent) and manage it (403 `space_change_denied`). */
export async function manageableAgent(
  readStore: ReadStore,
  agentId: string,
  caller: Caller,
): Promise<AgentView> {
  const agent = await accessibleAgent(readStore, agentId, caller);
  await assertManagesAgent(readStore, agent, caller);
  return agent;
}
