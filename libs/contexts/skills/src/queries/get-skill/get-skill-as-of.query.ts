// One Skill as it was at a time (GET /skills/{skillId}?asOf=), folded from its stream: its versions then, the one
// active then. Seen by whoever sees the place it had then (the policy asked as for the live read); 404 when it did
// not exist yet, was deleted by then, or is not seen.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { z } from 'zod';
import { Requires, type Principal } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { SkillNotFoundError } from '../../skill.decider.js';
import { SkillResolver } from '../../skill-resolver.js';
import { toSkillDto } from '../../skill-dto.js';
import { skillAsOf } from '../../skills-as-of.js';
import type { SkillDto } from '../../skills.schemas.js';

@Requires(SkillResolver, (skills, { skillId, asOf, principal }: GetSkillAsOf) =>
  skills.skillAsOf(skillId, asOf, principal),
)
export class GetSkillAsOf extends Query<z.output<typeof SkillDto>> {
  constructor(
    readonly skillId: string,
    readonly asOf: Date,
    readonly principal: Principal,
  ) {
    super();
  }
}

@QueryHandler(GetSkillAsOf)
export class GetSkillAsOfHandler implements IQueryHandler<GetSkillAsOf> {
  constructor(@Inject(EVENT_STORE) private readonly eventStore: EventStore) {}

  async execute({ skillId, asOf }: GetSkillAsOf) {
    const found = await skillAsOf(this.eventStore, skillId, asOf);
    if (!found) throw new SkillNotFoundError(skillId);
    return toSkillDto(found.skill, found.versions);
  }
}
