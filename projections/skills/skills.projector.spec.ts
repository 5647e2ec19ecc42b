import { projectionHarness } from '#testing/projection-harness';
import type { SkillEvent } from '#skills/skill.events';
import { SKILL_VERSIONS, SKILLS, type SkillVersionView, type SkillView } from '#skills/skills.read-model';
import { skillsProjector } from './skills.projector.js';

const blob = (digit: string, sizeBytes = 10) => ({
  blobId: `sha256-${digit.repeat(64)}`,
  sizeBytes,
  sha256: digit.repeat(64),
});
const files = [{ path: 'templates/report.md', ...blob('f', 42) }];
const created = (skillId = 'k1', placement: unknown = { kind: 'space', spaceId: 's1' }) =>
  ({
    type: 'SkillCreated',
    data: {
      skillId,
      name: 'report-writer',
      description: 'Use when asked for a weekly report',
      placement,
      source: 'CUSTOM',
      provider: null,
      sourceId: null,
      creatorType: 'USER',
      creatorId: 'u1',
    },
  }) as SkillEvent;
const saved = (versionId: string, number: number, digit = 'a', name = 'report-writer'): SkillEvent => ({
  type: 'SkillDraftSaved',
  data: {
    skillId: 'k1',
    versionId,
    number,
    name,
    description: `${name} description`,
    instructions: blob(digit),
    files,
  },
});
const published = (versionId: string, number: number): SkillEvent => ({
  type: 'SkillVersionPublished',
  data: { skillId: 'k1', versionId, number },
});
const rolledBack: SkillEvent = {
  type: 'SkillActiveVersionSet',
  data: { skillId: 'k1', versionId: 'v1', previousVersionId: 'v2', reason: 'rollback' },
};
const listed = (versionId: string): SkillEvent => ({
  type: 'SkillListedOnMarketplace',
  data: { skillId: 'k1', versionId },
});
const archived: SkillEvent = { type: 'SkillArchivedFromMarketplace', data: { skillId: 'k1' } };
const deleted: SkillEvent = { type: 'SkillDeleted', data: { skillId: 'k1', reason: 'requested' } };

describe('skills projection', () => {
  it('builds a Space Skill’s document from SkillCreated, and its draft version from SkillDraftSaved', async () => {
    const h = await projectionHarness(skillsProjector);
    const e1 = h.envelope(created());
    const e2 = h.envelope(saved('v1', 1));
    await h.apply(e1, e2);
    expect(await h.get<SkillView>(SKILLS, 'k1')).toEqual({
      id: 'k1',
      name: 'report-writer',
      description: 'Use when asked for a weekly report',
      placement: 'space',
      spaceId: 's1',
      agentId: null,
      source: 'CUSTOM',
      provider: null,
      sourceId: null,
      creatorType: 'USER',
      creatorId: 'u1',
      activeVersionId: null,
      draftVersionId: 'v1',
      marketplace: 'unlisted',
      listedVersionId: null,
      versionIds: ['v1'],
      createdAt: e1.metadata.occurredAt,
      updatedAt: e2.metadata.occurredAt,
    });
    expect(await h.get<SkillVersionView>(SKILL_VERSIONS, 'v1')).toEqual({
      id: 'v1',
      skillId: 'k1',
      number: 1,
      state: 'draft',
      name: 'report-writer',
      description: 'report-writer description',
      instructions: blob('a'),
      files,
      createdAt: e2.metadata.occurredAt,
      updatedAt: e2.metadata.occurredAt,
      publishedAt: null,
    });
  });

  it('places an Agent Skill by its agentId', async () => {
    const h = await projectionHarness(skillsProjector);
    await h.apply(h.envelope(created('k1', { kind: 'agent', agentId: 'a1' })));
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      placement: 'agent',
      spaceId: null,
      agentId: 'a1',
    });
  });

  it('replaces the draft’s content in place, keeping when it was first saved', async () => {
    const h = await projectionHarness(skillsProjector);
    const e2 = h.envelope(saved('v1', 1));
    const e3 = h.envelope(saved('v1', 1, 'b'));
    await h.apply(h.envelope(created()), e2);
    await h.apply(e3);
    expect(await h.get<SkillVersionView>(SKILL_VERSIONS, 'v1')).toMatchObject({
      instructions: blob('b'),
      createdAt: e2.metadata.occurredAt,
      updatedAt: e3.metadata.occurredAt,
    });
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({ versionIds: ['v1'], draftVersionId: 'v1' });
  });

  it('publishing makes the draft published and active; a further save is a new draft beside it', async () => {
    const h = await projectionHarness(skillsProjector);
    const e3 = h.envelope(published('v1', 1));
    await h.apply(h.envelope(created()), h.envelope(saved('v1', 1)), e3);
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      activeVersionId: 'v1',
      draftVersionId: null,
    });
    expect(await h.get<SkillVersionView>(SKILL_VERSIONS, 'v1')).toMatchObject({
      state: 'published',
      publishedAt: e3.metadata.occurredAt,
    });
    await h.apply(h.envelope(saved('v2', 2, 'b', 'weekly-report')));
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      name: 'report-writer',
      activeVersionId: 'v1',
      draftVersionId: 'v2',
      versionIds: ['v1', 'v2'],
    });
    expect(await h.get<SkillVersionView>(SKILL_VERSIONS, 'v2')).toMatchObject({ number: 2, state: 'draft' });
  });

  it('takes the live name and description from the active version: published, then rolled back', async () => {
    const h = await projectionHarness(skillsProjector);
    await h.apply(
      h.envelope(created()),
      h.envelope(saved('v1', 1)),
      h.envelope(published('v1', 1)),
      h.envelope(saved('v2', 2, 'b', 'weekly-report')),
      h.envelope(published('v2', 2)),
    );
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      name: 'weekly-report',
      description: 'weekly-report description',
      activeVersionId: 'v2',
      draftVersionId: null,
    });
    const e6 = h.envelope(rolledBack);
    await h.apply(e6);
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      name: 'report-writer',
      description: 'report-writer description',
      activeVersionId: 'v1',
      updatedAt: e6.metadata.occurredAt,
    });
  });

  it('follows the marketplace state: listed with its version, then archived, then restored', async () => {
    const h = await projectionHarness(skillsProjector);
    await h.apply(h.envelope(created()), h.envelope(saved('v1', 1)), h.envelope(published('v1', 1)));
    await h.apply(h.envelope(listed('v1')));
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      marketplace: 'listed',
      listedVersionId: 'v1',
    });
    await h.apply(h.envelope(archived));
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      marketplace: 'archived',
      listedVersionId: 'v1',
    });
    await h.apply(
      h.envelope({ type: 'SkillRestoredToMarketplace', data: { skillId: 'k1', versionId: 'v1' } }),
    );
    expect(await h.get<SkillView>(SKILLS, 'k1')).toMatchObject({
      marketplace: 'listed',
      listedVersionId: 'v1',
    });
  });

  it('deleting removes the Skill and every version, and leaves other Skills alone', async () => {
    const h = await projectionHarness(skillsProjector);
    await h.apply(
      h.envelope(created()),
      h.envelope(saved('v1', 1)),
      h.envelope(published('v1', 1)),
      h.envelope(saved('v2', 2, 'b')),
      h.envelope(created('k2')),
      h.envelope({ ...saved('w1', 1), data: { ...saved('w1', 1).data, skillId: 'k2' } } as SkillEvent),
    );
    expect(await h.count(SKILL_VERSIONS)).toBe(3);
    await h.apply(h.envelope(deleted));
    expect(await h.get(SKILLS, 'k1')).toBeNull();
    expect(await h.get(SKILL_VERSIONS, 'v1')).toBeNull();
    expect(await h.get(SKILL_VERSIONS, 'v2')).toBeNull();
    expect(await h.count(SKILLS)).toBe(1);
    expect(await h.get(SKILL_VERSIONS, 'w1')).toMatchObject({ skillId: 'k2' });
  });

  it('applying the same events twice changes nothing', async () => {
    const h = await projectionHarness(skillsProjector);
    const events = [
      h.envelope(created()),
      h.envelope(saved('v1', 1)),
      h.envelope(saved('v1', 1, 'b')),
      h.envelope(published('v1', 1)),
      h.envelope(saved('v2', 2, 'c', 'weekly-report')),
      h.envelope(published('v2', 2)),
      h.envelope(rolledBack),
      h.envelope(listed('v2')),
      h.envelope(saved('v3', 3, 'd')),
    ];
    await h.apply(...events);
    const read = () =>
      Promise.all([
        h.get(SKILLS, 'k1'),
        h.get(SKILL_VERSIONS, 'v1'),
        h.get(SKILL_VERSIONS, 'v2'),
        h.get(SKILL_VERSIONS, 'v3'),
      ]);
    const before = await read();
    await h.apply(...events);
    for (const event of events) await h.apply(event);
    expect(await read()).toEqual(before);
    expect(before[0]).toMatchObject({
      name: 'report-writer',
      activeVersionId: 'v1',
      draftVersionId: 'v3',
      versionIds: ['v1', 'v2', 'v3'],
      marketplace: 'listed',
    });
    expect(before[1]).toMatchObject({ state: 'published', instructions: blob('b') });
    expect(await h.count(SKILL_VERSIONS)).toBe(3);
  });

  it('a deleted Skill stays deleted when its events are applied again', async () => {
    const h = await projectionHarness(skillsProjector);
    const events = [
      h.envelope(created()),
      h.envelope(saved('v1', 1)),
      h.envelope(published('v1', 1)),
      h.envelope(saved('v2', 2, 'b')),
      h.envelope(deleted),
    ];
    await h.apply(...events);
    await h.apply(...events);
    for (const event of events.slice(1)) await h.apply(event);
    expect(await h.count(SKILLS)).toBe(0);
    expect(await h.count(SKILL_VERSIONS)).toBe(0);
  });
});
