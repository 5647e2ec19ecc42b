// The Agent a route names, if the caller may use it: 404 when there is no such Agent, 403 when the caller's key does
// not reach it. Every agent-scoped route starts here.
import { NotFoundError } from '#kernel';
import type { Caller } from '#identity';
import { assertAgentAccess } from '#identity';
import type { ReadStore } from '#read-store';
import { AGENTS, type AgentView } from './agents.read-model.js';

export async function accessibleAgent(
  readStore: ReadStore,
  agentId: string,
  caller: Caller,
): Promise<AgentView> {
  const agent = await readStore.reader<AgentView>(AGENTS).get(agentId);
  if (!agent) throw new NotFoundError('Agent', agentId);
  assertAgentAccess(caller, agent);
  return agent;
}
