// One Agent, if the caller may use it (404 when there is none, 403 when its key does not reach it).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Caller } from '#identity';
import { READ_STORE, type ReadStore } from '#read-store';
import { accessibleAgent } from '../../accessible-agent.js';
import { toAgentDto, type AgentDto } from './agent.dto.js';

export class GetAgent extends Query<z.output<typeof AgentDto>> {
  constructor(
    readonly agentId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetAgent)
export class GetAgentHandler implements IQueryHandler<GetAgent> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ agentId, caller }: GetAgent) {
    return toAgentDto(await accessibleAgent(this.readStore, agentId, caller));
  }
}
