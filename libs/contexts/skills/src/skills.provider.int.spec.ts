// The Skills provider's part of a regression replay, over a real SQLite read store and file blob store: the Skill
// versions a recorded turn loaded are re-sent as they were (manifest and instructions of that version, not the active
// one), and a version whose content is gone is named as not re-sent. (The Skills offered as of the recorded time, with
// load_skill: test/replay.e2e.spec.ts.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '#read-store/sqlite/sqlite-read-store';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import type { TurnContext } from '#conversations';
import { AvailableSkills } from './available-skills.js';
import { SkillReader } from './skill.reader.js';
import { SkillsContextProvider } from './skills.provider.js';
import { SKILL_VERSIONS, type SkillVersionView } from './skills.read-model.js';

describe('SkillsContextProvider.replay (int)', () => {
  const reads = new SqliteReadStore({ path: ':memory:' });
  const blobs = new FsBlobStore({ dir: mkdtempSync(join(tmpdir(), 'skills-replay-')) });
  const reader = new SkillReader(blobs, reads);
  // No Skill streams: nothing was available at the recorded time, so only what the turn loaded is re-sent.
  const events = new SqliteEventStore({ path: ':memory:' });
  const provider = new SkillsContextProvider(new AvailableSkills(reader), reader, events);
  const turn = { agent: { id: 'agt_1', spaceId: null }, tokenShare: 1000 } as unknown as TurnContext;
  const askedAt = new Date('2026-01-02T00:00:00.000Z');
  const ref = { name: 'skills', generation: 1 };
  afterAll(async () => {
    await reads.close();
    await events.close();
  });

  const version = async (
    id: string,
    number: number,
    instructions: string | null,
  ): Promise<SkillVersionView> => {
    const stored = instructions === null ? null : await blobs.put(Buffer.from(instructions));
    return {
      id,
      skillId: 'skl_1',
      number,
      state: 'published',
      name: 'haiku',
      description: `Writes haiku (v${number})`,
      instructions: stored
        ? { blobId: stored.id, sizeBytes: stored.sizeBytes, sha256: stored.sha256 }
        : { blobId: `sha256-${'0'.repeat(64)}`, sizeBytes: 1, sha256: '0'.repeat(64) },
      files: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      publishedAt: '2026-01-01T00:00:00.000Z',
    };
  };

  it('re-sends the loaded versions as they were and names the ones whose content is gone', async () => {
    await reads.prepareGeneration(ref, [{ name: SKILL_VERSIONS }]);
    await reads.saveProjection({ name: 'skills', liveGeneration: 1, liveVersion: 1 });
    const docs = [
      await version('skv_1', 1, 'Count five, seven, five syllables.'),
      await version('skv_2', 2, 'Version two instructions.'),
      await version('skv_3', 3, null),
    ];
    await reads.commit(
      ref,
      docs.map((doc, i) => ({
        position: i + 1,
        op: {
          kind: 'upsert',
          collection: SKILL_VERSIONS,
          doc: doc as unknown as SkillVersionView & Record<string, unknown>,
        },
      })),
      docs.length,
    );
    const replayed = await provider.replay(
      turn,
      [
        { kind: 'skill', id: 'skl_1', version: 1, versionId: 'skv_1' },
        { kind: 'memory', id: 'mem_1', version: 1 },
        { kind: 'skill', id: 'skl_1', version: 3, versionId: 'skv_3' },
      ],
      askedAt,
    );
    expect(replayed!.system).toContain('Writes haiku (v1)');
    expect(replayed!.system).toContain('Count five, seven, five syllables.');
    expect(replayed!.system).not.toContain('Version two instructions.');
    expect(replayed!.missing).toEqual([
      expect.stringMatching(/^skill:skl_1@3 \(its content is no longer stored/),
    ]);
    expect(replayed!.tools).toEqual([]);
    expect(await provider.replay(turn, [{ kind: 'memory', id: 'mem_1', version: 1 }], askedAt)).toBeNull();
  });
});
