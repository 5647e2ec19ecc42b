// The Skills an Agent had available at a time (GET /skills?agentId=&asOf=): each with the version active then. The
// caller must use the Agent now (the policy asked as for the live list); the Agent's Space is the one it had then.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { agentAsOf } from '#agents';
import { Requires, type Principal } from '#access';
import { NotFoundError } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { SkillResolver } from '../../skill-resolver.js';
import { toSkillDto } from '../../skill-dto.js';
import { availableSkillsAsOf } from '../../skills-as-of.js';
import type { SkillDto, SkillListQuery } from '../../skills.schemas.js';

@Requires(SkillResolver, (skills, { query }: ListSkillsAsOf) => skills.listAsOf(query))
export class ListSkillsAsOf extends Query<{ data: z.output<typeof SkillDto>[]; nextCursor: null }> {
  constructor(
    readonly query: z.output<typeof SkillListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListSkillsAsOf)
export class ListSkillsAsOfHandler implements IQueryHandler<ListSkillsAsOf> {
  constructor(@Inject(EVENT_STORE) private readonly eventStore: EventStore) {}

  /** The gate asked that the query names one Agent (SkillResolver.listAsOf). */
  async execute({ query }: ListSkillsAsOf) {
    const agentId = query.agentId!;
    const asOf = new Date(query.asOf!);
    const then = await agentAsOf(this.eventStore, agentId, asOf);
    if (!then) throw new NotFoundError('Agent', agentId);
    const skills = await availableSkillsAsOf(this.eventStore, then, asOf);
    return { data: skills.map(({ skill, versions }) => toSkillDto(skill, versions)), nextCursor: null };
  }
}
