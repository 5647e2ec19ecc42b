import {
  marketplaceListing,
  skillDecider,
  SkillNotFoundError,
  SkillVersionNotFoundError,
  type SkillCommand,
} from './skill.decider.js';
import {
  skillStreamId,
  type BlobRef,
  type SkillContent,
  type SkillEvent,
  type SkillState,
} from './skill.events.js';
import { deciderSpec } from '#testing/decider-spec';

const given = deciderSpec(skillDecider);
const fold = (...events: SkillEvent[]): SkillState =>
  events.reduce(skillDecider.evolve, skillDecider.initialState());

const blob = (digit: string, sizeBytes = 10): BlobRef => ({
  blobId: `sha256-${digit.repeat(64)}`,
  sizeBytes,
  sha256: digit.repeat(64),
});
const content = (name = 'report-writer', digit = 'a'): SkillContent => ({
  name,
  description: 'Use when asked for a weekly report',
  instructions: blob(digit),
  files: [{ path: 'templates/report.md', ...blob('f', 42) }],
});
const space = { kind: 'space', spaceId: 's1' } as const;
const user = { creatorType: 'USER', creatorId: 'u1' } as const;
const custom = { source: 'CUSTOM', provider: null, sourceId: null, ...user } as const;

const create = (
  publish = false,
  over: Partial<Extract<SkillCommand, { type: 'CreateSkill' }>> = {},
): SkillCommand => ({
  type: 'CreateSkill',
  skillId: 'k1',
  versionId: 'v1',
  placement: space,
  ...custom,
  content: content(),
  publish,
  ...over,
});
const createdEvent = (name = 'report-writer'): Extract<SkillEvent, { type: 'SkillCreated' }> => ({
  type: 'SkillCreated',
  data: {
    skillId: 'k1',
    name,
    description: 'Use when asked for a weekly report',
    placement: space,
    ...custom,
  },
});
const saved = (versionId: string, number: number, with_ = content()): SkillEvent => ({
  type: 'SkillDraftSaved',
  data: { skillId: 'k1', versionId, number, ...with_ },
});
const save = (versionId: string, with_ = content()): SkillCommand => ({
  type: 'SaveSkillDraft',
  skillId: 'k1',
  versionId,
  content: with_,
});
const published = (versionId: string, number: number): SkillEvent => ({
  type: 'SkillVersionPublished',
  data: { skillId: 'k1', versionId, number },
});
const publish: SkillCommand = { type: 'PublishSkillVersion', skillId: 'k1' };
const setActive = (versionId: string): SkillCommand => ({
  type: 'SetActiveSkillVersion',
  skillId: 'k1',
  versionId,
});
const listed = (versionId: string): SkillEvent => ({
  type: 'SkillListedOnMarketplace',
  data: { skillId: 'k1', versionId },
});
const list = (versionId: string | null = null): SkillCommand => ({
  type: 'ListOnMarketplace',
  skillId: 'k1',
  versionId,
});
const archived: SkillEvent = { type: 'SkillArchivedFromMarketplace', data: { skillId: 'k1' } };
const archive: SkillCommand = { type: 'ArchiveFromMarketplace', skillId: 'k1' };
const restore: SkillCommand = { type: 'RestoreToMarketplace', skillId: 'k1' };
const deleted: SkillEvent = { type: 'SkillDeleted', data: { skillId: 'k1', reason: 'requested' } };
const del = (reason: 'requested' | 'uninstalled' | 'owner_deleted' = 'requested'): SkillCommand => ({
  type: 'DeleteSkill',
  skillId: 'k1',
  reason,
});

/** A Skill with version 1 published (active) and version 2 published (active). */
const twoPublished = [
  createdEvent(),
  saved('v1', 1),
  published('v1', 1),
  saved('v2', 2, content('report-writer', 'b')),
  published('v2', 2),
];

describe('Skill decider', () => {
  it('names one stream per Skill', () => expect(skillStreamId('k1')).toBe('skill-k1'));

  describe('CreateSkill', () => {
    it('creates the Skill with its first version as a draft: nothing is live until it is published', () => {
      given()
        .when(create())
        .then([createdEvent(), saved('v1', 1)]);
      expect(fold(createdEvent(), saved('v1', 1))).toMatchObject({
        status: 'live',
        name: 'report-writer',
        activeVersionId: null,
        draftVersionId: 'v1',
        marketplace: 'unlisted',
        versions: [{ versionId: 'v1', number: 1, state: 'draft' }],
      });
    });

    it('publishes the first version at once when asked: it becomes active', () => {
      given()
        .when(create(true))
        .then([createdEvent(), saved('v1', 1), published('v1', 1)]);
      expect(fold(createdEvent(), saved('v1', 1), published('v1', 1))).toMatchObject({
        activeVersionId: 'v1',
        draftVersionId: null,
        versions: [{ versionId: 'v1', state: 'published' }],
      });
    });

    it('keeps the provenance and an Agent placement', () =>
      given()
        .when(
          create(false, {
            placement: { kind: 'agent', agentId: 'a1' },
            source: 'DEFAULT',
            provider: 'platform',
            sourceId: 'default-report-writer',
            creatorType: 'PLATFORM',
            creatorId: null,
          }),
        )
        .then([
          {
            type: 'SkillCreated',
            data: {
              skillId: 'k1',
              name: 'report-writer',
              description: 'Use when asked for a weekly report',
              placement: { kind: 'agent', agentId: 'a1' },
              source: 'DEFAULT',
              provider: 'platform',
              sourceId: 'default-report-writer',
              creatorType: 'PLATFORM',
              creatorId: null,
            },
          },
          saved('v1', 1),
        ]));

    it('trims the name and the description', () =>
      given()
        .when(
          create(false, {
            content: {
              ...content(),
              name: '  report-writer ',
              description: ' Use when asked for a weekly report\n',
            },
          }),
        )
        .then([createdEvent(), saved('v1', 1)]));

    it('is skill_exists for an id already used, even by a deleted Skill', () => {
      given(createdEvent(), saved('v1', 1)).when(create()).thenThrows('skill_exists');
      given(createdEvent(), saved('v1', 1), deleted).when(create()).thenThrows('skill_exists');
    });

    it('refuses an empty name or description (400)', () => {
      given()
        .when(create(false, { content: { ...content(), name: '  ' } }))
        .thenThrows('invalid_skill_name');
      given()
        .when(create(false, { content: { ...content(), description: '' } }))
        .thenThrows('invalid_skill_description');
    });

    it('refuses a user Skill without its creator', () =>
      given()
        .when(create(false, { creatorId: null }))
        .thenThrows('invalid_skill_creator'));

    it('refuses blob references that are not content addresses', () => {
      const bad = (instructions: BlobRef) => create(false, { content: { ...content(), instructions } });
      given()
        .when(bad({ ...blob('a'), blobId: `sha256-${'b'.repeat(64)}` }))
        .thenThrows('invalid_blob_ref');
      given()
        .when(bad({ blobId: 'sha256-xyz', sha256: 'xyz', sizeBytes: 1 }))
        .thenThrows('invalid_blob_ref');
      given()
        .when(bad({ ...blob('a'), sizeBytes: -1 }))
        .thenThrows('invalid_blob_ref');
      given()
        .when(create(false, { content: { ...content(), files: [{ path: 'x.md', ...blob('A') }] } }))
        .thenThrows('invalid_blob_ref');
    });

    it.each(['', '/etc/passwd', '../up.md', 'a/../../b', 'a//b', './a', 'a\\b', 'dir/'])(
      'refuses the reference file path %j (it is placed in the sandbox)',
      (path) =>
        given()
          .when(create(false, { content: { ...content(), files: [{ path, ...blob('f') }] } }))
          .thenThrows('invalid_skill_file_path'),
    );

    it('refuses two reference files at one path', () =>
      given()
        .when(
          create(false, {
            content: {
              ...content(),
              files: [
                { path: 'a.md', ...blob('1') },
                { path: 'a.md', ...blob('2') },
              ],
            },
          }),
        )
        .thenThrows('duplicate_skill_file_path'));
  });

  describe('SaveSkillDraft', () => {
    it('replaces the content of the one draft, under its id and number', () =>
      given(createdEvent(), saved('v1', 1))
        .when(save('v9', content('report-writer', 'b')))
        .then([saved('v1', 1, content('report-writer', 'b'))]));

    it('leaves the live version (and the live name) unchanged', () => {
      const state = fold(
        createdEvent(),
        saved('v1', 1),
        published('v1', 1),
        saved('v2', 2, content('weekly-report')),
      );
      expect(state).toMatchObject({ name: 'report-writer', activeVersionId: 'v1', draftVersionId: 'v2' });
    });

    it('creates a new draft with the next number after a publish: a published version is immutable', () =>
      given(createdEvent(), saved('v1', 1), published('v1', 1))
        .when(save('v2', content('report-writer', 'b')))
        .then([saved('v2', 2, content('report-writer', 'b'))]));

    it('keeps the active version while the new draft is edited', () => {
      const state = fold(
        createdEvent(),
        saved('v1', 1),
        published('v1', 1),
        saved('v2', 2, content('report-writer', 'b')),
        saved('v2', 2, content('report-writer', 'c')),
      );
      expect(state).toMatchObject({
        activeVersionId: 'v1',
        draftVersionId: 'v2',
        versions: [
          { versionId: 'v1', state: 'published', instructions: blob('a') },
          { versionId: 'v2', number: 2, state: 'draft', instructions: blob('c') },
        ],
      });
    });

    it('saves nothing when the draft already has this content (a retry)', () =>
      given(createdEvent(), saved('v1', 1)).when(save('v9')).then([]));

    it('saves nothing when retried after its draft was published', () =>
      given(createdEvent(), saved('v1', 1), published('v1', 1), saved('v2', 2), published('v2', 2))
        .when(save('v2'))
        .then([]));

    it('validates the content as creation does', () => {
      given(createdEvent(), saved('v1', 1))
        .when(save('v2', { ...content(), name: '' }))
        .thenThrows('invalid_skill_name');
      given(createdEvent(), saved('v1', 1))
        .when(save('v2', { ...content(), files: [{ path: '../x', ...blob('f') }] }))
        .thenThrows('invalid_skill_file_path');
    });

    it('is skill_not_found on an absent or deleted Skill', () => {
      given().when(save('v1')).thenThrows('skill_not_found');
      given(createdEvent(), saved('v1', 1), deleted).when(save('v2')).thenThrows('skill_not_found');
    });
  });

  describe('PublishSkillVersion', () => {
    it('publishes the draft, which becomes the active version', () => {
      given(createdEvent(), saved('v1', 1))
        .when(publish)
        .then([published('v1', 1)]);
      given(createdEvent(), saved('v1', 1), published('v1', 1), saved('v2', 2, content('report-writer', 'b')))
        .when(publish)
        .then([published('v2', 2)]);
      expect(fold(...twoPublished)).toMatchObject({ activeVersionId: 'v2', draftVersionId: null });
    });

    it('makes the published manifest the live name and description (a rename)', () => {
      const renamed = { ...content('weekly-report'), description: 'Use for weekly reports' };
      const state = fold(createdEvent(), saved('v1', 1), published('v1', 1), saved('v2', 2, renamed));
      expect(state).toMatchObject({ name: 'report-writer' });
      expect(skillDecider.evolve(state, published('v2', 2))).toMatchObject({
        name: 'weekly-report',
        description: 'Use for weekly reports',
      });
    });

    it('is no_draft (409) when there is no draft', () => {
      given(createdEvent(), saved('v1', 1), published('v1', 1)).when(publish).thenThrows('no_draft');
      expect(() =>
        skillDecider.decide(publish, fold(createdEvent(), saved('v1', 1), published('v1', 1))),
      ).toThrow(expect.objectContaining({ kind: 'conflict', code: 'no_draft' }));
    });

    it('is skill_not_found on an absent or deleted Skill', () => {
      given().when(publish).thenThrows('skill_not_found');
      given(createdEvent(), saved('v1', 1), deleted).when(publish).thenThrows('skill_not_found');
    });
  });

  describe('SetActiveSkillVersion', () => {
    it('rolls back to an earlier published version', () =>
      given(...twoPublished)
        .when(setActive('v1'))
        .then([
          {
            type: 'SkillActiveVersionSet',
            data: { skillId: 'k1', versionId: 'v1', previousVersionId: 'v2', reason: 'rollback' },
          },
        ]));

    it('rolls forward again after a rollback', () => {
      const rolledBack: SkillEvent = {
        type: 'SkillActiveVersionSet',
        data: { skillId: 'k1', versionId: 'v1', previousVersionId: 'v2', reason: 'rollback' },
      };
      given(...twoPublished, rolledBack)
        .when(setActive('v2'))
        .then([
          {
            type: 'SkillActiveVersionSet',
            data: { skillId: 'k1', versionId: 'v2', previousVersionId: 'v1', reason: 'roll_forward' },
          },
        ]);
    });

    it('brings back the rolled-back version’s name, and keeps a pending draft', () => {
      const renamed = content('weekly-report', 'b');
      const state = fold(
        createdEvent(),
        saved('v1', 1),
        published('v1', 1),
        saved('v2', 2, renamed),
        published('v2', 2),
        saved('v3', 3, content('weekly-report', 'c')),
        {
          type: 'SkillActiveVersionSet',
          data: { skillId: 'k1', versionId: 'v1', previousVersionId: 'v2', reason: 'rollback' },
        },
      );
      expect(state).toMatchObject({ name: 'report-writer', activeVersionId: 'v1', draftVersionId: 'v3' });
    });

    it('sets nothing when the version is already active', () =>
      given(...twoPublished)
        .when(setActive('v2'))
        .then([]));

    it('is skill_version_not_published (409) for the draft', () =>
      given(...twoPublished, saved('v3', 3, content('report-writer', 'c')))
        .when(setActive('v3'))
        .thenThrows('skill_version_not_published'));

    it('is skill_version_not_found (404, on versionId) for an unknown version', () => {
      given(...twoPublished)
        .when(setActive('v7'))
        .thenThrows('skill_version_not_found');
      let error: unknown;
      try {
        skillDecider.decide(setActive('v7'), fold(...twoPublished));
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(SkillVersionNotFoundError);
      expect(error).toMatchObject({ kind: 'not_found', param: 'versionId' });
    });

    it('is skill_not_found (404, on skillId) on an absent or deleted Skill', () => {
      given(...twoPublished, deleted)
        .when(setActive('v1'))
        .thenThrows('skill_not_found');
      let error: unknown;
      try {
        skillDecider.decide(setActive('v1'), fold());
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(SkillNotFoundError);
      expect(error).toMatchObject({ kind: 'not_found', code: 'skill_not_found', param: 'skillId' });
    });
  });

  describe('marketplace', () => {
    it('lists the active version by default, or a given published one', () => {
      given(...twoPublished)
        .when(list())
        .then([listed('v2')]);
      given(...twoPublished)
        .when(list('v1'))
        .then([listed('v1')]);
      expect(fold(...twoPublished, listed('v1'))).toMatchObject({
        marketplace: 'listed',
        listedVersionId: 'v1',
      });
    });

    it('lists a newer version in place of the listed one, and nothing for the one already listed', () => {
      given(...twoPublished, listed('v1'))
        .when(list('v2'))
        .then([listed('v2')]);
      given(...twoPublished, listed('v2'))
        .when(list())
        .then([]);
    });

    it('lists published versions only', () => {
      given(createdEvent(), saved('v1', 1)).when(list()).thenThrows('skill_not_published');
      given(createdEvent(), saved('v1', 1)).when(list('v1')).thenThrows('skill_version_not_published');
      given(...twoPublished)
        .when(list('v7'))
        .thenThrows('skill_version_not_found');
    });

    it('does not list an installed copy again', () =>
      given(
        {
          type: 'SkillCreated',
          data: { ...createdEvent().data, source: 'MARKETPLACE', provider: 'marketplace', sourceId: 'k0' },
        },
        saved('v1', 1),
        published('v1', 1),
      )
        .when(list())
        .thenThrows('skill_not_listable'));

    it('archives a listed Skill, once', () => {
      given(...twoPublished, listed('v2'))
        .when(archive)
        .then([archived]);
      given(...twoPublished, listed('v2'), archived)
        .when(archive)
        .then([]);
      expect(fold(...twoPublished, listed('v2'), archived)).toMatchObject({
        marketplace: 'archived',
        listedVersionId: 'v2',
      });
    });

    it('archives only a listed Skill (skill_not_listed)', () =>
      given(...twoPublished)
        .when(archive)
        .thenThrows('skill_not_listed'));

    it('lists an archived Skill again: the entry was kept', () =>
      given(...twoPublished, listed('v2'), archived)
        .when(list())
        .then([listed('v2')]));

    it('restores an archived entry at the version it offered last, once', () => {
      const restored: SkillEvent = {
        type: 'SkillRestoredToMarketplace',
        data: { skillId: 'k1', versionId: 'v1' },
      };
      // v2 is active, but the entry offered v1 when it was archived: v1 comes back.
      given(...twoPublished, listed('v1'), archived)
        .when(restore)
        .then([restored]);
      given(...twoPublished, listed('v1'), archived, restored)
        .when(restore)
        .then([]);
      expect(fold(...twoPublished, listed('v1'), archived, restored)).toMatchObject({
        marketplace: 'listed',
        listedVersionId: 'v1',
      });
      // Installable again.
      expect(marketplaceListing(fold(...twoPublished, listed('v1'), archived, restored), 'k1')).toMatchObject(
        {
          skillId: 'k1',
          versionId: 'v1',
        },
      );
    });

    it('restores only an archived entry (skill_not_archived), never a deleted Skill', () => {
      given(...twoPublished)
        .when(restore)
        .thenThrows('skill_not_archived');
      given(...twoPublished, listed('v2'), archived, deleted)
        .when(restore)
        .thenThrows('skill_not_found');
    });

    it('is skill_not_found on a deleted Skill', () => {
      given(...twoPublished, deleted)
        .when(list())
        .thenThrows('skill_not_found');
      given(...twoPublished, listed('v2'), archived, deleted)
        .when(archive)
        .thenThrows('skill_not_found');
    });
  });

  describe('InstallSkill', () => {
    const origin = fold(...twoPublished, listed('v1'));
    const install = (): SkillCommand => ({
      type: 'InstallSkill',
      skillId: 'k2',
      versionId: 'w1',
      placement: { kind: 'agent', agentId: 'a1' },
      provider: 'marketplace',
      ...user,
      listing: marketplaceListing(origin, 'k1'),
    });

    it('reads the listed version of a listed Skill', () =>
      expect(marketplaceListing(origin, 'k1')).toEqual({
        skillId: 'k1',
        versionId: 'v1',
        content: content(),
      }));

    it('reads no listing of an unlisted, archived or deleted Skill', () => {
      expect(() => marketplaceListing(fold(...twoPublished), 'k1')).toThrow(
        expect.objectContaining({ code: 'skill_not_listed' }),
      );
      expect(() => marketplaceListing(fold(...twoPublished, listed('v1'), archived), 'k1')).toThrow(
        expect.objectContaining({ code: 'skill_not_listed' }),
      );
      expect(() => marketplaceListing(fold(...twoPublished, listed('v1'), deleted), 'k1')).toThrow(
        expect.objectContaining({ code: 'skill_not_found' }),
      );
    });

    it('creates a new MARKETPLACE Skill naming its origin, with the listed content published at once', () => {
      const copy = { skillId: 'k2', versionId: 'w1' };
      given()
        .when(install())
        .then([
          {
            type: 'SkillCreated',
            data: {
              skillId: 'k2',
              name: 'report-writer',
              description: 'Use when asked for a weekly report',
              placement: { kind: 'agent', agentId: 'a1' },
              source: 'MARKETPLACE',
              provider: 'marketplace',
              sourceId: 'k1',
              ...user,
            },
          },
          { type: 'SkillDraftSaved', data: { ...copy, number: 1, ...content() } },
          { type: 'SkillVersionPublished', data: { ...copy, number: 1 } },
        ]);
    });

    it('is skill_exists for an id already used', () =>
      given({ ...createdEvent(), data: { ...createdEvent().data, skillId: 'k2' } })
        .when(install())
        .thenThrows('skill_exists'));
  });

  describe('DeleteSkill', () => {
    it('deletes a Skill for good: nothing can act on it afterwards', () => {
      given(...twoPublished)
        .when(del())
        .then([deleted]);
      expect(fold(...twoPublished, deleted)).toMatchObject({ status: 'deleted' });
      given(...twoPublished, deleted)
        .when(del())
        .thenThrows('skill_not_found');
      given().when(del()).thenThrows('skill_not_found');
    });

    it('deletes an archived Skill, but not a listed one (archive it first)', () => {
      given(...twoPublished, listed('v2'), archived)
        .when(del())
        .then([deleted]);
      given(...twoPublished, listed('v2'))
        .when(del())
        .thenThrows('skill_listed_on_marketplace');
    });

    it('uninstalls an installed copy only', () => {
      const installed: SkillEvent = {
        type: 'SkillCreated',
        data: { ...createdEvent().data, source: 'MARKETPLACE', provider: 'marketplace', sourceId: 'k0' },
      };
      given(installed, saved('v1', 1), published('v1', 1))
        .when(del('uninstalled'))
        .then([{ type: 'SkillDeleted', data: { skillId: 'k1', reason: 'uninstalled' } }]);
      given(...twoPublished)
        .when(del('uninstalled'))
        .thenThrows('skill_not_installed');
    });

    it('deletes with its owner even when listed, and finds an already gone Skill a no-op', () => {
      const cascade = { type: 'SkillDeleted', data: { skillId: 'k1', reason: 'owner_deleted' } } as const;
      given(...twoPublished, listed('v2'))
        .when(del('owner_deleted'))
        .then([cascade]);
      given(...twoPublished, deleted)
        .when(del('owner_deleted'))
        .then([]);
      given().when(del('owner_deleted')).then([]);
    });
  });
});
