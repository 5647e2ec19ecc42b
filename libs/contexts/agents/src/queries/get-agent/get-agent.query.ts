// One Agent, if the caller may use it (404 when there is none, 403 when its key does not reach it). With `asOf`, the
// Agent as it was then: its stream folded up to that time with the decider's evolve (404 when it did not exist yet
// or was already deleted); access is judged on that state, so a deleted Agent's past stays readable to whoever could
// use it.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError } from '#kernel';
import { Requires, type Caller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { agentById, AgentResolver } from '../../agent-resolver.js';
import { agentAsOf } from '../../agent-as-of.js';
import { toAgentDto, type AgentDto } from './agent.dto.js';

@Requires(AgentResolver, (agents, { agentId, asOf }: GetAgent) =>
  asOf ? agents.useAsOf(agentId, asOf) : agents.use(agentId),
)
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

@QueryHandler(GetAgent)
export class GetAgentHandler implements IQueryHandler<GetAgent> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ agentId, asOf }: GetAgent) {
    if (!asOf) return toAgentDto(await agentById(this.readStore, agentId));
    const agent = await agentAsOf(this.eventStore, agentId, asOf);
    if (!agent) throw new NotFoundError('Agent', agentId);
    return toAgentDto(agent);
  }
}
