// The Agents a caller may use, oldest first. The query itself narrows to them, so that pages are full: a user who is
// not an admin (a session, or a key of theirs) gets the Agents of the Spaces they have a role in and their own
// personal Agent; a key granted a list of Agents also only those it lists (and its user's personal Agent, which
// follows the user, not the grant list). An admin's list is not narrowed by Space; another user's personal Agent is
// then filtered out after paging (such a page may be short, the cursor stays exact). Every Agent is still asked of the
// policy with its Space before it is answered.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { agentUseScope, Filters, permits, principalOf, type Caller } from '#access';
import { findAll, READ_STORE, type Filter, type ReadStore } from '#read-store';
import { roleSpaceIds } from '#spaces';
import { AGENTS, type AgentView } from '../../agents.read-model.js';
import { spaceOf } from '../../agent-resolver.js';
import { toAgentDto, type AgentDto } from '../get-agent/agent.dto.js';
import type { AgentListQuery } from './list-agents.schema.js';

@Filters('agent.use')
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
    const page = await this.readStore.reader<AgentView>(AGENTS).find(await this.reachable(query, caller), {
      sort: { field: 'createdAt' },
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
    return {
      data: (
        await Promise.all(
          page.data.map(async (agent) =>
            permits(caller, 'agent.use', { ...agent, space: await spaceOf(this.readStore, agent) })
              ? agent
              : null,
          ),
        )
      )
        .filter((agent) => agent !== null)
        .map(toAgentDto),
      nextCursor: page.nextCursor,
    };
  }

  /** The query of the Agents the caller may use, as far as the policy's scope of `agent.use` says (it decides each). */
  private async reachable(query: ListAgents['query'], caller: Caller): Promise<Filter> {
    const principal = principalOf(caller);
    const scope = agentUseScope(principal);
    const own = await findAll<AgentView>(this.readStore, AGENTS, {
      ownerUserId: caller.userId,
      isPersonal: true,
    });
    const filter: Record<string, Filter[string]> = {};
    if (scope.grantedIds) filter.id = { $in: [...scope.grantedIds, ...own.map((agent) => agent.id)] };
    if (scope.anySpace) {
      if (query.spaceId) filter.spaceId = query.spaceId;
      return filter;
    }
    // The Spaces the user has a role in, and their private personal Space (their personal Agent's).
    const spaceIds = new Set(await roleSpaceIds(this.readStore, principal));
    for (const agent of own) if (agent.spaceId) spaceIds.add(agent.spaceId);
    filter.spaceId = query.spaceId
      ? spaceIds.has(query.spaceId)
        ? query.spaceId
        : { $in: [] }
      : { $in: [...spaceIds] };
    return filter;
  }
}
