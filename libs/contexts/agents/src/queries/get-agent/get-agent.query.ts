// One Agent, if the caller may use it (404 when there is none, 403 when its key does not reach it). With `asOf`, the
// Agent as it was then: its stream folded up to that time with the decider's evolve (404 when it did not exist yet
// or was already deleted); access is judged on that state, so a deleted Agent's past stays readable to whoever could
// use it.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { assertAgentAccess, type Caller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { loadStateAsOf } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { spaceAsOf } from '#spaces';
import { accessibleAgent, spaceOf } from '../../accessible-agent.js';
import { agentStreamId, evolveAgent, initialAgentState, type AgentState } from '../../agent.events.js';
import type { AgentView } from '../../agents.read-model.js';
import { toAgentDto, type AgentDto } from './agent.dto.js';

export class GetAgent extends Query<z.output<typeof AgentDto>> {
  constructor(
    readonly agentId: string,
    readonly caller: Caller,
    /** Answer the Agent as of this time rather than now. */
    readonly asOf?: Date,
  ) {
    super();
  }
}

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

@QueryHandler(GetAgent)
export class GetAgentHandler implements IQueryHandler<GetAgent> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ agentId, caller, asOf }: GetAgent) {
    if (!asOf) return toAgentDto(await accessibleAgent(this.readStore, agentId, caller));
    const agent = await agentAsOf(this.eventStore, agentId, asOf);
    if (!agent) throw new NotFoundError('Agent', agentId);
    // Its Space now, or (deleted since) as it was then: the caller's role in it is what `agent.use` reads.
    const space =
      (await spaceOf(this.readStore, agent)) ??
      (agent.spaceId ? await spaceAsOf(this.eventStore, agent.spaceId, asOf) : null);
    assertAgentAccess(caller, { ...agent, space });
    return toAgentDto(agent);
  }
}
