// The Skills an Agent has: the DEFAULT ones every Agent has, its Space's, and its own; only those with a published
// active version (a draft is never loaded). Its own win over its Space's, and those over the defaults, by name.
// Asked on every turn: kept per Agent (and Space) until the skills projection applies a batch in this process, and not
// kept where another process runs that projection (ProjectionCache), so a Skill changed through this api is offered
// (or no longer offered) from the next turn.
import { Injectable, Optional } from '@nestjs/common';
import type { AgentView } from '#agents';
import { ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { byCodeUnits } from '#kernel';
import { SkillReader } from './skill.reader.js';
import { SKILLS_PROJECTION, type SkillVersionView, type SkillView } from './skills.read-model.js';

export interface AvailableSkill {
  readonly skill: SkillView;
  readonly version: SkillVersionView;
}

@Injectable()
export class AvailableSkills {
  private readonly kept: ProjectionCache<readonly AvailableSkill[]>;

  constructor(
    private readonly reader: SkillReader,
    @Optional() runner?: ProjectionRunner,
  ) {
    this.kept = new ProjectionCache(runner, SKILLS_PROJECTION, { remoteTtlMs: 0 });
  }

  of(agent: Pick<AgentView, 'id' | 'spaceId'>): Promise<readonly AvailableSkill[]> {
    return this.kept.get(`${agent.id}\u0000${agent.spaceId ?? ''}`, () => this.read(agent));
  }

  private async read(agent: Pick<AgentView, 'id' | 'spaceId'>): Promise<readonly AvailableSkill[]> {
    const [globals, space, own] = await Promise.all([
      this.reader.placed({ placement: 'global' }),
      agent.spaceId ? this.reader.placed({ spaceId: agent.spaceId }) : Promise.resolve([]),
      this.reader.placed({ agentId: agent.id }),
    ]);
    const byName = new Map<string, SkillView>();
    for (const skill of [...globals, ...space, ...own])
      if (skill.activeVersionId) byName.set(skill.name, skill);
    const available: AvailableSkill[] = [];
    for (const skill of byName.values()) {
      const version = await this.reader.version(skill.activeVersionId!);
      if (version?.state === 'published') available.push({ skill, version });
    }
    return Object.freeze(available.toSorted((a, b) => byCodeUnits(a.skill.name, b.skill.name)));
  }
}
