// The Skill aggregate (spec: "Skill", "Skill version"): its events, state and evolve, one stream per Skill. Content
// never sits in an event: the instructions and each reference file are blobs (content-addressed, `sha256-<hex>`), and
// events carry references to them, so deleting a Skill purges its content for good while the log keeps the facts.
// A Skill has numbered versions: at most one draft (saving again replaces its content) and immutable published ones;
// publishing makes a version the active one (what Agents load), and the active version can be set back to an earlier
// published one. A version carries its own manifest (name and description): the Skill's live name and description are
// the active version's, or, before anything is published, the ones it was created with. There is no SkillRenamed:
// a rename is a version whose manifest has the new name, live once it is published (or set active).
import { eventTypesOf, type DomainEvent } from '#kernel';

/** A blob of the blob store: its content address and what the bytes are. */
export interface BlobRef {
  /** `sha256-<64 lowercase hex>`: the blob store's id of the bytes. */
  readonly blobId: string;
  readonly sizeBytes: number;
  /** The 64 lowercase hex digits of the bytes' SHA-256 (the blobId without its prefix). */
  readonly sha256: string;
}

/** A reference file of a version (template, example, checklist): where it sits in the bundle, and its blob. */
export interface SkillFileRef extends BlobRef {
  /** Relative, `/`-separated (`templates/report.md`); unique within the version. */
  readonly path: string;
}

/**
 * Where a Skill is available: to a Space (inherited by its Agents), to one Agent, or, for the DEFAULT Skills that
 * ship with the instance, to every Agent.
 */
export type SkillPlacement =
  | { readonly kind: 'space'; readonly spaceId: string }
  | { readonly kind: 'agent'; readonly agentId: string }
  | { readonly kind: 'global' };

export const SKILL_SOURCES = ['CUSTOM', 'DEFAULT', 'MARKETPLACE'] as const;
export type SkillSource = (typeof SKILL_SOURCES)[number];

export const SKILL_CREATOR_TYPES = ['PLATFORM', 'USER'] as const;
export type SkillCreatorType = (typeof SKILL_CREATOR_TYPES)[number];

export type SkillVersionState = 'draft' | 'published';

/**
 * unlisted: never listed; listed: others can install it; archived: no longer offered (entries are never deleted;
 * admins list archived entries and restore them).
 */
export type SkillMarketplaceState = 'unlisted' | 'listed' | 'archived';

/** requested: a user deleted it; uninstalled: an installed marketplace copy removed; owner_deleted: its Space or Agent went. */
export type SkillDeletionReason = 'requested' | 'uninstalled' | 'owner_deleted';

/** The manifest of a version: what the Agent sees before it loads the Skill (the description is the trigger). */
export interface SkillManifest {
  readonly name: string;
  readonly description: string;
}

/** Everything a version holds: its manifest and the blobs of its instructions and reference files. */
export interface SkillContent extends SkillManifest {
  /** The procedure the Agent follows once the Skill is loaded (the body of SKILL.md). */
  readonly instructions: BlobRef;
  readonly files: readonly SkillFileRef[];
}

/** Where a Skill came from and who made it. */
export interface SkillProvenance {
  readonly source: SkillSource;
  /** Who provides it (for an installation: the marketplace it came from); null for a Skill made here. */
  readonly provider: string | null;
  /** The id of the original at the provider (for an installation: the listed Skill's id); null for one made here. */
  readonly sourceId: string | null;
  readonly creatorType: SkillCreatorType;
  /** The user who created it; null when the platform did. */
  readonly creatorId: string | null;
}

type Id = { readonly skillId: string };

export type SkillEvent =
  | DomainEvent<
      'SkillCreated',
      Id &
        SkillManifest &
        SkillProvenance & {
          readonly placement: SkillPlacement;
        }
    >
  /** The draft was created (the next number) or its content replaced (same versionId and number). */
  | DomainEvent<
      'SkillDraftSaved',
      Id &
        SkillContent & {
          readonly versionId: string;
          /** 1, 2, 3…: the version's number within the Skill. */
          readonly number: number;
        }
    >
  /** The draft became published, immutable, and the active version. */
  | DomainEvent<'SkillVersionPublished', Id & { readonly versionId: string; readonly number: number }>
  /** Another published version became active: back to an earlier one, or forward again after a rollback. */
  | DomainEvent<
      'SkillActiveVersionSet',
      Id & {
        readonly versionId: string;
        readonly previousVersionId: string;
        readonly reason: 'rollback' | 'roll_forward';
      }
    >
  /** Others can install this published version (listed for the first time, again after archiving, or a newer one). */
  | DomainEvent<'SkillListedOnMarketplace', Id & { readonly versionId: string }>
  | DomainEvent<'SkillArchivedFromMarketplace', Id>
  /** An archived entry offered again, at the version it offered last (an admin restored it). */
  | DomainEvent<'SkillRestoredToMarketplace', Id & { readonly versionId: string }>
  /** Permanent: the handler then purges the blobs no other Skill version references. */
  | DomainEvent<'SkillDeleted', Id & { readonly reason: SkillDeletionReason }>;

export type SkillEventType = SkillEvent['type'];

/** Every type of the union, checked complete by the compiler. */
export const SKILL_EVENT_TYPES = eventTypesOf<SkillEvent>({
  SkillCreated: true,
  SkillDraftSaved: true,
  SkillVersionPublished: true,
  SkillActiveVersionSet: true,
  SkillListedOnMarketplace: true,
  SkillArchivedFromMarketplace: true,
  SkillRestoredToMarketplace: true,
  SkillDeleted: true,
});

export const skillStreamId = (skillId: string): string => `skill-${skillId}`;

export interface SkillVersion extends SkillContent {
  readonly versionId: string;
  readonly number: number;
  readonly state: SkillVersionState;
}

export interface SkillRecord extends SkillProvenance {
  readonly skillId: string;
  readonly placement: SkillPlacement;
  /** The live name: the active version's, or the one it was created with while nothing is published. */
  readonly name: string;
  /** The live description, as the name. */
  readonly description: string;
  /** Every version, oldest (number 1) first. */
  readonly versions: readonly SkillVersion[];
  /** The version Agents load; null until the first publish. */
  readonly activeVersionId: string | null;
  /** The one draft, if any. */
  readonly draftVersionId: string | null;
  readonly marketplace: SkillMarketplaceState;
  /** The version the marketplace offers (while listed) or offered last (archived); null when never listed. */
  readonly listedVersionId: string | null;
}

export type SkillState =
  { readonly status: 'absent' } | ({ readonly status: 'live' | 'deleted' } & SkillRecord);

export const initialSkillState = (): SkillState => ({ status: 'absent' });

export const findSkillVersion = (state: SkillRecord, versionId: string | null): SkillVersion | undefined =>
  versionId === null ? undefined : state.versions.find((version) => version.versionId === versionId);

/** The version that becomes active: the Skill's live name and description become its manifest's. */
function activated(state: SkillRecord, versionId: string): SkillRecord {
  const version = findSkillVersion(state, versionId);
  if (!version) return state;
  return { ...state, activeVersionId: versionId, name: version.name, description: version.description };
}

function evolveRecord(state: SkillRecord, event: Exclude<SkillEvent, { type: 'SkillCreated' }>): SkillRecord {
  switch (event.type) {
    case 'SkillDraftSaved': {
      const { skillId: _skillId, ...version } = event.data;
      const draft: SkillVersion = { ...version, state: 'draft' };
      const known = findSkillVersion(state, draft.versionId);
      return {
        ...state,
        versions: known
          ? state.versions.map((entry) => (entry.versionId === draft.versionId ? draft : entry))
          : [...state.versions, draft],
        draftVersionId: draft.versionId,
      };
    }
    case 'SkillVersionPublished': {
      const { versionId } = event.data;
      const published = {
        ...state,
        versions: state.versions.map((entry): SkillVersion =>
          entry.versionId === versionId ? { ...entry, state: 'published' } : entry,
        ),
        draftVersionId: state.draftVersionId === versionId ? null : state.draftVersionId,
      };
      return activated(published, versionId);
    }
    case 'SkillActiveVersionSet':
      return activated(state, event.data.versionId);
    case 'SkillListedOnMarketplace':
      return { ...state, marketplace: 'listed', listedVersionId: event.data.versionId };
    case 'SkillArchivedFromMarketplace':
      return { ...state, marketplace: 'archived' };
    case 'SkillRestoredToMarketplace':
      return { ...state, marketplace: 'listed', listedVersionId: event.data.versionId };
    case 'SkillDeleted':
      return state;
  }
}

export function evolveSkill(state: SkillState, event: SkillEvent): SkillState {
  if (event.type === 'SkillCreated') {
    if (state.status !== 'absent') return state;
    const { skillId, name, description, placement, source, provider, sourceId, creatorType, creatorId } =
      event.data;
    return {
      status: 'live',
      skillId,
      placement,
      name,
      description,
      source,
      provider,
      sourceId,
      creatorType,
      creatorId,
      versions: [],
      activeVersionId: null,
      draftVersionId: null,
      marketplace: 'unlisted',
      listedVersionId: null,
    };
  }
  if (state.status === 'absent') return state;
  if (event.type === 'SkillDeleted') return { ...state, status: 'deleted' };
  return { status: state.status, ...evolveRecord(state, event) };
}
