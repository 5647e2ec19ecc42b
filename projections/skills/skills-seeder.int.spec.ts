// The DEFAULT Skills are seeded through SeedDefaultSkill, as the platform (the policy's `skill.change` on the global
// place allows it), over real stores: each is created and published once; a second start appends nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import {
  AggregateRepository,
  ProjectionRunner,
  ProjectionWaiter,
  ReadYourWritesBus,
  processLeaseOwner,
} from '#eventsourcing';
import { loadConfig } from '#kernel';
import { directCommandBus } from '#testing/direct-command-bus';
import { inMemoryStores } from '#testing/fixtures';
import {
  SeedDefaultSkill,
  SeedDefaultSkillHandler,
} from '#skills/commands/seed-default-skill/seed-default-skill.command';
import { DEFAULT_SKILLS } from '#skills/default-skills';
import { SkillRepository } from '#skills/skill.repository';
import { SkillsSeeder } from '#skills/skills-seeder';

describe('SkillsSeeder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skills-seeder-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('seeds every DEFAULT Skill once, published, as the platform; a restart appends nothing', async () => {
    const { events, reads } = inMemoryStores();
    const blobs = new FsBlobStore({ dir });
    const config = loadConfig({});
    const aggregates = new AggregateRepository(events, config);
    const runner = new ProjectionRunner(events, reads, [], { owner: processLeaseOwner('t') });
    const handler = new SeedDefaultSkillHandler(
      new SkillRepository(
        aggregates,
        new ReadYourWritesBus(directCommandBus(), new ProjectionWaiter(reads, runner), config, events),
        blobs,
        reads,
      ),
      aggregates,
    );
    const seeder = new SkillsSeeder(directCommandBus([SeedDefaultSkill, handler]));

    await seeder.onApplicationBootstrap();
    const seeded = await events.headPosition();
    const created = (await events.readAll()).filter((event) => event.type === 'SkillCreated');
    expect(created).toHaveLength(DEFAULT_SKILLS.length);
    for (const event of created) {
      expect(event.data).toMatchObject({ source: 'DEFAULT', creatorType: 'PLATFORM', creatorId: null });
      expect(event.metadata.actor).toEqual({ kind: 'system', id: 'platform' });
    }

    await seeder.onApplicationBootstrap();
    expect(await events.headPosition()).toBe(seeded);
  });
});
