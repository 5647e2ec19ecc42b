// The Agent a route names, if the principal may use it: 404 when there is no such Agent, 403 when the principal does
// not reach it. Every agent-scoped route starts here. A route that changes the Agent (or what its Space shares)
// starts at manageableAgent instead: using an Agent is not managing it. The rules are the policy's (`agent.use`,
// `agent.manage` in #access policy/agents.rules.ts); these load the Agent and its Space and raise the HTTP errors.
import { ForbiddenError, NotFoundError } from '#kernel';
import { forbidden, permits, demand, asPrincipal, type PrincipalOrCaller } from '#access';
import type { ReadStore } from '#read-store';
import { SPACES, type SpaceView } from '#spaces';
import { AGENTS, type AgentView } from './agents.read-model.js';

export async function accessibleAgent(
  readStore: ReadStore,
  agentId: string,
  who: PrincipalOrCaller,
  denied: (agent: AgentView) => ForbiddenError = (agent) =>
    forbidden('agent_access_denied', `this API key is not granted access to Agent '${agent.id}'`),
): Promise<AgentView> {
  const agent = await readStore.reader<AgentView>(AGENTS).get(agentId);
  if (!agent) throw new NotFoundError('Agent', agentId);
  if (!permits(who, 'agent.use', { ...agent, space: await spaceOf(readStore, agent) })) throw denied(agent);
  return agent;
}

/** The Agent's Space with its members (what `agent.use` reads for the principal's role); null when none or gone. */
export async function spaceOf(
  readStore: ReadStore,
  agent: Pick<AgentView, 'spaceId'>,
): Promise<SpaceView | null> {
  return agent.spaceId ? ((await readStore.reader<SpaceView>(SPACES).get(agent.spaceId)) ?? null) : null;
}

/** Whether the principal manages this Agent (one it reaches): the policy's rule, with the Agent's Space read. */
export async function managesAgent(
  readStore: ReadStore,
  agent: AgentView,
  who: PrincipalOrCaller,
): Promise<boolean> {
  const space = await spaceOf(readStore, agent);
  return permits(who, 'agent.manage', { agent, space });
}

/** 403 `space_change_denied` unless the principal manages the Agent. */
export async function assertManagesAgent(
  readStore: ReadStore,
  agent: AgentView,
  who: PrincipalOrCaller,
): Promise<void> {
  if (!(await managesAgent(readStore, agent, who))) throw manageDenied(agent);
}

/** The 403 `space_change_denied` of a principal that uses the Agent but may not manage it. */
export const manageDenied = (agent: Pick<AgentView, 'id' | 'spaceId'>): ForbiddenError =>
  forbidden(
    'space_change_denied',
    agent.spaceId
      ? `you may use Agent '${agent.id}' but not manage it: that needs the right to change its Space '${agent.spaceId}'`
      : `only admins manage Agent '${agent.id}'`,
  );

/** The Agent, if the principal may use (404/403 as accessibleAgent) and manage it (403 `space_change_denied`). */
export async function manageableAgent(
  readStore: ReadStore,
  agentId: string,
  who: PrincipalOrCaller,
): Promise<AgentView> {
  const agent = await accessibleAgent(readStore, agentId, who);
  await assertManagesAgent(readStore, agent, who);
  return agent;
}

/**
 * 403 unless the policy lets the principal manage the Agent. A request's principal is asked as manageableAgent asks
 * it (404 when the read model has no such Agent). The platform (a process manager) acts on the log, which the read
 * model may lag (an Agent created a moment ago) or have forgotten (the replay of a deletion): it is asked about the
 * Agent as the read model has it, or else as its id names it; the decider, reading the Agent's stream, then says
 * whether there is anything to do.
 */
export async function authorizeManagement(
  readStore: ReadStore,
  agentId: string,
  who: PrincipalOrCaller,
): Promise<void> {
  const principal = asPrincipal(who);
  if (principal.kind !== 'platform') {
    await manageableAgent(readStore, agentId, principal);
    return;
  }
  const agent = (await readStore.reader<AgentView>(AGENTS).get(agentId)) ?? {
    id: agentId,
    isPersonal: false,
    ownerUserId: null,
    spaceId: null,
  };
  const space = await spaceOf(readStore, agent);
  demand(
    principal,
    'agent.manage',
    { agent, space },
    `process '${principal.process}' may not manage Agent '${agentId}'`,
  );
}
