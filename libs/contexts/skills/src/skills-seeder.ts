// Seeds the DEFAULT Skills on start through commands (never behind the log's back): one SeedDefaultSkill each, in a
// system context whose event ids derive from the Skill's id, sent as the platform; the command appends nothing for a
// Skill seeded before, so a restart, or two processes starting together, append nothing twice.
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { PlatformPrincipal } from '#access';
import { derivedEventId, SYSTEM_ACTOR } from '#kernel';
import {
  defaultSkillId,
  SeedDefaultSkill,
} from './commands/seed-default-skill/seed-default-skill.command.js';
import { DEFAULT_SKILLS } from './default-skills.js';

const PLATFORM: PlatformPrincipal = { kind: 'platform', process: 'skills-seeder' };

@Injectable()
export class SkillsSeeder implements OnApplicationBootstrap {
  constructor(private readonly bus: CommandBus) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const skill of DEFAULT_SKILLS) {
      const skillId = defaultSkillId(skill.name);
      try {
        await this.bus.execute(
          new SeedDefaultSkill(
            skill,
            {
              actor: SYSTEM_ACTOR,
              correlationId: `seed-${skillId}`,
              eventId: (index) => derivedEventId('default-skill', skillId, String(index)),
              now: () => new Date(),
            },
            PLATFORM,
          ),
        );
      } catch {
        // Another process seeded it meanwhile: the stream exists now, which is all that matters.
      }
    }
  }
}
