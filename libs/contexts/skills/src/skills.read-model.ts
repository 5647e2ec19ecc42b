// The Skills read models, built by projections/skills under one projection: one document per live Skill (its live
// name and description, where it is available, its provenance, active and draft versions and marketplace state), and
// one document per version (its manifest and blob references, never content). A deleted Skill leaves no document.
import { defineReadModel } from '#eventsourcing';
import type {
  BlobRef,
  SkillCreatorType,
  SkillFileRef,
  SkillMarketplaceState,
  SkillPlacement,
  SkillSource,
  SkillVersionState,
} from './skill.events.js';

export interface SkillView {
  readonly id: string;
  /** The active version's name, or the one it was created with while nothing is published. */
  readonly name: string;
  readonly description: string;
  readonly placement: SkillPlacement['kind'];
  /** Set for a Space Skill (available to the Space's Agents); null for an Agent Skill. */
  readonly spaceId: string | null;
  /** Set for an Agent Skill; null for a Space Skill. */
  readonly agentId: string | null;
  readonly source: SkillSource;
  readonly provider: string | null;
  readonly sourceId: string | null;
  readonly creatorType: SkillCreatorType;
  readonly creatorId: string | null;
  /** The version Agents load; null until the first publish. */
  readonly activeVersionId: string | null;
  readonly draftVersionId: string | null;
  readonly marketplace: SkillMarketplaceState;
  /** The version the marketplace offers (listed) or offered last (archived); null when never listed. */
  readonly listedVersionId: string | null;
  /** Every version's id, oldest first: what a deletion purges from skill_versions. */
  readonly versionIds: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface SkillVersionView {
  /** The versionId. */
  readonly id: string;
  readonly skillId: string;
  readonly number: number;
  readonly state: SkillVersionState;
  readonly name: string;
  readonly description: string;
  readonly instructions: BlobRef;
  readonly files: readonly SkillFileRef[];
  /** When the version was first saved as a draft. */
  readonly createdAt: string;
  /** When its content was last saved (a draft's replaced content; a published version's stays its last save). */
  readonly updatedAt: string;
  /** null while it is a draft. */
  readonly publishedAt: string | null;
}

export const SKILLS = 'skills';
export const SKILL_VERSIONS = 'skill_versions';
export const SKILLS_PROJECTION = 'skills';

export const SKILLS_READ_MODEL = defineReadModel<SkillView>({
  name: SKILLS,
  projection: SKILLS_PROJECTION,
  // The Skills of a Space and of an Agent (with their names, for the uniqueness check); the marketplace's entries.
  indexes: [{ fields: ['spaceId', 'name'] }, { fields: ['agentId', 'name'] }, { fields: ['marketplace'] }],
});

export const SKILL_VERSIONS_READ_MODEL = defineReadModel<SkillVersionView>({
  name: SKILL_VERSIONS,
  projection: SKILLS_PROJECTION,
  indexes: [{ fields: ['skillId', 'number'] }],
});

/** The read models a Skill write waits for before its route reads its change back. */
export const SKILL_READ_MODELS = [SKILLS_READ_MODEL, SKILL_VERSIONS_READ_MODEL] as const;
