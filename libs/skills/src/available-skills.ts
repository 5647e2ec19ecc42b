// The Skills an Agent has: the DEFAULT ones every Agent has, its Space's, and its own; only those with a published
// active version (a draft is never loaded). Its own win over its Space's, and those over the defaults, by name.
import { Injectable } from '@nestjs/common';
import type { AgentView } from '#agents';
import { SkillReader } from './skill.reader.js';
import type { SkillVersionView, SkillView } from './skills.read-model.js';

export interface AvailableSkill {
  readonly skill: SkillView;
  readonly version: SkillVersionView;
}

@Injectable()
export class AvailableSkills {
  constructor(private readonly reader: SkillReader) {}

  async of(agent: Pick<AgentView, 'id' | 'spaceId'>): Promise<AvailableSkill[]> {
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
    return available.toSorted((a, b) => a.skill.name.localeCompare(b.skill.name));
  }
}
