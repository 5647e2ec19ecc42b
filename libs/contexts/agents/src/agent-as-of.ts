// An Agent as it was at a time: its stream folded up to then with the decider's evolve.
import type { EventStore } from '#event-store';
import { loadStateAsOf } from '#eventsourcing';
import { agentStreamId, evolveAgent, initialAgentState, type AgentState } from './agent.events.js';
import type { AgentView } from './agents.read-model.js';

/** The Agent as of a time, folded from its stream; null when it did not exist then (or was deleted by then). */
export async function agentAsOf(store: EventStore, agentId: string, asOf: Date): Promise<AgentView | null> {
  const { state, firstAt, lastAt } = await loadStateAsOf<AgentState, Parameters<typeof evolveAgent>[1]>(
    store,
    agentStreamId(agentId),
    asOf,
    initialAgentState(),
    evolveAgent,
  );
  if (state.status !== 'active') return null;
  const { agentId: id, ...record } = state;
  const { status: _status, ...settings } = record;
  return { id, ...settings, createdAt: firstAt!, updatedAt: lastAt! };
}
