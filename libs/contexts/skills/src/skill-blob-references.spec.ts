import type { EventEnvelope } from '#kernel';
import { skillBlobReferences } from './skill-blob-references.js';
import type { SkillEvent } from './skill.events.js';

const blob = (digit: string) => ({
  blobId: `sha256-${digit.repeat(64)}`,
  sizeBytes: 1,
  sha256: digit.repeat(64),
});
const id = (digit: string) => blob(digit).blobId;
const created = (skillId: string): SkillEvent => ({
  type: 'SkillCreated',
  data: {
    skillId,
    name: skillId,
    description: 'd',
    placement: { kind: 'global' },
    source: 'DEFAULT',
    provider: null,
    sourceId: null,
    creatorType: 'PLATFORM',
    creatorId: null,
  },
});
const saved = (
  skillId: string,
  versionId: string,
  number: number,
  instructions: string,
  file: string,
): SkillEvent => ({
  type: 'SkillDraftSaved',
  data: {
    skillId,
    versionId,
    number,
    name: skillId,
    description: 'd',
    instructions: blob(instructions),
    files: [{ path: 'ref.md', ...blob(file) }],
  },
});
const published = (skillId: string, versionId: string, number: number): SkillEvent => ({
  type: 'SkillVersionPublished',
  data: { skillId, versionId, number },
});

const referenced = (...events: SkillEvent[]) => {
  const fold = skillBlobReferences.start();
  for (const event of events) fold.apply(event as unknown as EventEnvelope);
  return new Set(fold.referenced());
};

describe('Skill blobs as the blob gc sees them', () => {
  it('keeps every version of a live Skill (a DEFAULT one too), and nothing of a deleted one', () => {
    expect(
      referenced(
        created('draft-email'),
        saved('draft-email', 'v1', 1, '1', '2'),
        published('draft-email', 'v1', 1),
        saved('draft-email', 'v2', 2, '3', '2'),
        created('gone'),
        saved('gone', 'g1', 1, '4', '5'),
        published('gone', 'g1', 1),
        { type: 'SkillDeleted', data: { skillId: 'gone', reason: 'requested' } } as SkillEvent,
      ),
    ).toEqual(new Set([id('1'), id('2'), id('3')]));
  });

  it("lets go of a draft's content once the draft is saved again", () => {
    expect(referenced(created('k'), saved('k', 'v1', 1, '1', '2'), saved('k', 'v1', 1, '3', '4'))).toEqual(
      new Set([id('3'), id('4')]),
    );
  });
});
