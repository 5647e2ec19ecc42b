// Seeds the DEFAULT Skills on start through commands (never behind the log's back): each with an id derived from
// its name, created and published only when its stream does not exist yet, with event ids derived from it, so a
// restart, or two processes starting together, append nothing twice.
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { derivedEventId, SYSTEM_ACTOR } from '#kernel';
import { skillStreamId } from './skill.events.js';
import { DEFAULT_SKILLS } from './default-skills.js';
import { SkillStore } from './skill-store.js';

export const defaultSkillId = (name: string): string => `skl_default_${name.replaceAll('-', '_')}`;

@Injectable()
export class SkillsSeeder implements OnApplicationBootstrap {
  constructor(private readonly store: SkillStore) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const skill of DEFAULT_SKILLS) {
      const skillId = defaultSkillId(skill.name);
      if ((await this.store.aggregates.store.streamRevision(skillStreamId(skillId))) !== null) continue;
      const content = await this.store.content({
        manifest: skill,
        files: skill.files.map((file) => ({ path: file.path, bytes: Buffer.from(file.content, 'utf8') })),
      });
      try {
        await this.store.run(
          {
            type: 'CreateSkill',
            skillId,
            versionId: `skv_default_${skill.name.replaceAll('-', '_')}_1`,
            placement: { kind: 'global' },
            source: 'DEFAULT',
            provider: 'platform',
            sourceId: skill.name,
            creatorType: 'PLATFORM',
            creatorId: null,
            content,
            publish: true,
          },
          {
            actor: SYSTEM_ACTOR,
            correlationId: `seed-${skillId}`,
            eventId: (index) => derivedEventId('default-skill', skillId, String(index)),
            now: () => new Date(),
          },
        );
      } catch {
        // Another process seeded it meanwhile: the stream exists now, which is all that matters.
      }
    }
  }
}
