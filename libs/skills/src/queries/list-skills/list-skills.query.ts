// The Skills of a Space, or every Skill an Agent has (its own, its Space's, the DEFAULT ones); without either, the
// DEFAULT Skills.
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { accessibleAgent } from '#agents';
import type { Caller } from '#identity';
import { ValidationError } from '#kernel';
import { Inject } from '@nestjs/common';
import { READ_STORE, type ReadStore } from '#read-store';
import { SkillAccess } from '../../skill-access.js';
import { toSkillDto } from '../../skill-dto.js';
import { SkillStore } from '../../skill-store.js';
import type { SkillDto, SkillListQuery } from '../../skills.schemas.js';

export class ListSkills extends Query<{ data: z.output<typeof SkillDto>[]; nextCursor: null }> {
  constructor(
    readonly query: z.output<typeof SkillListQuery>,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListSkills)
export class ListSkillsHandler implements IQueryHandler<ListSkills> {
  constructor(
    private readonly access: SkillAccess,
    private readonly store: SkillStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async execute({ query, caller }: ListSkills) {
    if (query.agentId !== undefined && query.spaceId !== undefined)
      throw new ValidationError('invalid_placement', 'name at most one of spaceId and agentId', 'spaceId');
    let skills;
    if (query.agentId !== undefined) {
      const agent = await accessibleAgent(this.readStore, query.agentId, caller);
      skills = [
        ...(await this.store.placed({ placement: 'global' })),
        ...(agent.spaceId ? await this.store.placed({ spaceId: agent.spaceId }) : []),
        ...(await this.store.placed({ agentId: agent.id })),
      ];
    } else if (query.spaceId !== undefined) {
      await this.access.canSee({ kind: 'space', spaceId: query.spaceId }, caller);
      skills = await this.store.placed({ spaceId: query.spaceId });
    } else skills = await this.store.placed({ placement: 'global' });
    return {
      data: skills
        .toSorted((a, b) => a.createdAt.localeCompare(b.createdAt))
        .map((skill) => toSkillDto(skill)),
      nextCursor: null,
    };
  }
}
