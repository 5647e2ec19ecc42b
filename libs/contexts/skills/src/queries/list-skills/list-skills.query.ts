// The Skills of a Space, or every Skill an Agent has (its own, its Space's, the DEFAULT ones); without either, the
// DEFAULT Skills.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { agentById } from '#agents';
import { Requires, type Principal } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { SkillResolver } from '../../skill-resolver.js';
import { toSkillDto } from '../../skill-dto.js';
import { SkillReader } from '../../skill.reader.js';
import type { SkillDto, SkillListQuery } from '../../skills.schemas.js';

@Requires(SkillResolver, (skills, { query, principal }: ListSkills) => skills.list(query, principal))
export class ListSkills extends Query<{ data: z.output<typeof SkillDto>[]; nextCursor: null }> {
  constructor(
    readonly query: z.output<typeof SkillListQuery>,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(ListSkills)
export class ListSkillsHandler implements IQueryHandler<ListSkills> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly reader: SkillReader,
  ) {}

  async execute({ query }: ListSkills) {
    let skills;
    if (query.agentId !== undefined) {
      const agent = await agentById(this.readStore, query.agentId);
      skills = [
        ...(await this.reader.placed({ placement: 'global' })),
        ...(agent.spaceId ? await this.reader.placed({ spaceId: agent.spaceId }) : []),
        ...(await this.reader.placed({ agentId: agent.id })),
      ];
    } else if (query.spaceId !== undefined) {
      skills = await this.reader.placed({ spaceId: query.spaceId });
    } else {
      skills = await this.reader.placed({ placement: 'global' });
    }
    return {
      data: skills
        .toSorted((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map((skill) => toSkillDto(skill)),
      nextCursor: null,
    };
  }
}
