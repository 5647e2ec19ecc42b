// The Skills of a Space, or every Skill an Agent has (its own, its Space's, the DEFAULT ones); without either, the
// DEFAULT Skills.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import type { Principal } from '#access';
import { ValidationError } from '#kernel';
import { SkillAccess } from '../../skill-access.js';
import { toSkillDto } from '../../skill-dto.js';
import { SkillReader } from '../../skill.reader.js';
import type { SkillDto, SkillListQuery } from '../../skills.schemas.js';

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
    private readonly access: SkillAccess,
    private readonly reader: SkillReader,
  ) {}

  async execute({ query, principal }: ListSkills) {
    if (query.agentId !== undefined && query.spaceId !== undefined)
      throw new ValidationError('invalid_placement', 'name at most one of spaceId and agentId', 'spaceId');
    let skills;
    if (query.agentId !== undefined) {
      const agent = await this.access.agent(query.agentId, principal);
      skills = [
        ...(await this.reader.placed({ placement: 'global' })),
        ...(agent.spaceId ? await this.reader.placed({ spaceId: agent.spaceId }) : []),
        ...(await this.reader.placed({ agentId: agent.id })),
      ];
    } else if (query.spaceId !== undefined) {
      await this.access.canSee({ kind: 'space', spaceId: query.spaceId }, principal);
      skills = await this.reader.placed({ spaceId: query.spaceId });
    } else {
      await this.access.canSee({ kind: 'global' }, principal);
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
