// The Skills an Agent had available at a time (GET /skills?agentId=&asOf=): each with the version active then. The
// caller must use the Agent now (the policy asked as for the live list); the Agent's Space is the one it had then.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { accessibleAgent, agentAsOf } from '#agents';
import type { Principal } from '#access';
import { NotFoundError, ValidationError } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { toSkillDto } from '../../skill-dto.js';
import { availableSkillsAsOf } from '../../skills-as-of.js';
import type { SkillDto, SkillListQuery } from '../../skills.schemas.js';

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
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async execute({ query, principal }: ListSkillsAsOf) {
    if (query.agentId === undefined || query.spaceId !== undefined)
      throw new ValidationError(
        'as_of_needs_agent',
        'asOf lists the Skills of one Agent: name agentId only',
        'asOf',
      );
    const asOf = new Date(query.asOf!);
    await accessibleAgent(this.readStore, query.agentId, principal);
    const then = await agentAsOf(this.eventStore, query.agentId, asOf);
    if (!then) throw new NotFoundError('Agent', query.agentId);
    const skills = await availableSkillsAsOf(this.eventStore, then, asOf);
    return { data: skills.map(({ skill, versions }) => toSkillDto(skill, versions)), nextCursor: null };
  }
}
