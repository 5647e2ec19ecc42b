// Builds the Skills read models (libs/contexts/skills/src/skills.read-model.ts): one document per live Skill and one per
// version, holding blob references only. The Skill's live name and description follow its active version. Deleting a
// Skill removes its document and every version's (the Skill keeps their ids for that, as conversations do messages').
import { defineProjector, type EnvelopeOf, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { SkillEvent } from '#skills';
import {
  SKILL_VERSIONS,
  SKILL_VERSIONS_READ_MODEL,
  SKILLS,
  SKILLS_PROJECTION,
  SKILLS_READ_MODEL,
  type SkillVersionView,
  type SkillView,
} from '#skills';

const patchSkill = (id: string, set: Partial<SkillView>): WriteOp => ({
  kind: 'patch',
  collection: SKILLS,
  id,
  set,
});

const skill = (context: ProjectionContext, id: string) => context.get<SkillView>(SKILLS, id);

/** The Skill's active version becomes this one: its live name and description become the version's manifest. */
async function activated(
  event: EnvelopeOf<SkillEvent, 'SkillVersionPublished' | 'SkillActiveVersionSet'>,
  context: ProjectionContext,
  set: Partial<SkillView> = {},
): Promise<WriteOp[]> {
  const { skillId, versionId } = event.data;
  const version = await context.get<SkillVersionView>(SKILL_VERSIONS, versionId);
  if (!version) return [];
  return [
    patchSkill(skillId, {
      ...set,
      activeVersionId: versionId,
      name: version.name,
      description: version.description,
      updatedAt: event.metadata.occurredAt,
    }),
  ];
}

export const skillsProjector = defineProjector<SkillEvent>({
  name: SKILLS_PROJECTION,
  version: 1,
  collections: [SKILLS_READ_MODEL, SKILL_VERSIONS_READ_MODEL],
  on: {
    SkillCreated: ({ data, metadata }) => {
      const doc: SkillView = {
        id: data.skillId,
        name: data.name,
        description: data.description,
        placement: data.placement.kind,
        spaceId: data.placement.kind === 'space' ? data.placement.spaceId : null,
        agentId: data.placement.kind === 'agent' ? data.placement.agentId : null,
        source: data.source,
        provider: data.provider,
        sourceId: data.sourceId,
        creatorType: data.creatorType,
        creatorId: data.creatorId,
        activeVersionId: null,
        draftVersionId: null,
        marketplace: 'unlisted',
        listedVersionId: null,
        versionIds: [],
        createdAt: metadata.occurredAt,
        updatedAt: metadata.occurredAt,
      };
      return [{ kind: 'upsert', collection: SKILLS, doc: { ...doc } }];
    },
    SkillDraftSaved: async ({ data, metadata }, context) => {
      const current = await skill(context, data.skillId);
      // A version of a Skill already deleted (a replay) would be left behind: nothing would purge it.
      if (!current) return [];
      const at = metadata.occurredAt;
      const known = await context.get<SkillVersionView>(SKILL_VERSIONS, data.versionId);
      const doc: SkillVersionView = {
        id: data.versionId,
        skillId: data.skillId,
        number: data.number,
        state: 'draft',
        name: data.name,
        description: data.description,
        instructions: data.instructions,
        files: data.files,
        createdAt: known?.createdAt ?? at,
        updatedAt: at,
        publishedAt: null,
      };
      const versionIds = current.versionIds.includes(data.versionId)
        ? current.versionIds
        : [...current.versionIds, data.versionId];
      return [
        { kind: 'upsert', collection: SKILL_VERSIONS, doc: { ...doc } },
        patchSkill(data.skillId, { draftVersionId: data.versionId, versionIds, updatedAt: at }),
      ];
    },
    SkillVersionPublished: async (event, context) => {
      const { skillId, versionId } = event.data;
      const current = await skill(context, skillId);
      const published: WriteOp = {
        kind: 'patch',
        collection: SKILL_VERSIONS,
        id: versionId,
        set: { state: 'published', publishedAt: event.metadata.occurredAt },
      };
      const draftVersionId = current?.draftVersionId === versionId ? null : (current?.draftVersionId ?? null);
      return [published, ...(await activated(event, context, { draftVersionId }))];
    },
    SkillActiveVersionSet: (event, context) => activated(event, context),
    SkillListedOnMarketplace: ({ data, metadata }) => [
      patchSkill(data.skillId, {
        marketplace: 'listed',
        listedVersionId: data.versionId,
        updatedAt: metadata.occurredAt,
      }),
    ],
    SkillArchivedFromMarketplace: ({ data, metadata }) => [
      patchSkill(data.skillId, { marketplace: 'archived', updatedAt: metadata.occurredAt }),
    ],
    SkillRestoredToMarketplace: ({ data, metadata }) => [
      patchSkill(data.skillId, {
        marketplace: 'listed',
        listedVersionId: data.versionId,
        updatedAt: metadata.occurredAt,
      }),
    ],
    SkillDeleted: async ({ data }, context) => {
      const current = await skill(context, data.skillId);
      return [
        ...(current?.versionIds ?? []).map((id): WriteOp => ({
          kind: 'delete',
          collection: SKILL_VERSIONS,
          id,
        })),
        { kind: 'delete', collection: SKILLS, id: data.skillId },
      ];
    },
  },
});
