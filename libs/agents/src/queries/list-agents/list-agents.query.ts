// The Agents a caller may use, oldest first. Another user's personal Agent, and (for a session or a key granted
// `all`) an Agent of a Space the user has no role in, is filtered out after paging: a page may be short, the cursor
// stays exact. A key granted a list of Agents also lists its user's personal Agent (it follows the
// user, not the grant list).
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { canAccessAgent, type Caller } from '#identity';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { AGENTS, type AgentView } from '../../agents.read-model.js';
import { spaceOf } from '../../accessible-agent.js';
import { toAgentDto, type AgentDto } from '../get-agent/agent.dto.js';
import type { AgentListQuery } from './list-agents.schema.js';

export class ListAgents extends Query<{ data: z.output<typeof AgentDto>[]; nextCursor: string | null }> {
  constructor(
    readonly query: z.output<typeof AgentListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListAgents)
export class ListAgentsHandler implements IQueryHandler<ListAgents> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ query, caller }: ListAgents) {
    const access = caller.apiKey.agentAccess;
    const own = async () =>
      (
        await findAll<AgentView>(this.readStore, AGENTS, { ownerUserId: caller.userId, isPersonal: true })
      ).map((agent) => agent.id);
    const filter = {
      ...(query.spaceId ? { spaceId: query.spaceId } : {}),
      ...(!caller.isAdmin && access.kind === 'agents'
        ? { id: { $in: [...access.agentIds, ...(await own())] } }
        : {}),
    };
    const page = await this.readStore.reader<AgentView>(AGENTS).find(filter, {
      sort: { field: 'createdAt' },
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
    return {
      data: (
        await Promise.all(
          page.data.map(async (agent) =>
            canAccessAgent(caller, { ...agent, space: await spaceOf(this.readStore, agent) }) ? agent : null,
          ),
        )
      )
        .filter((agent) => agent !== null)
        .map(toAgentDto),
      nextCursor: page.nextCursor,
    };
  }
}
