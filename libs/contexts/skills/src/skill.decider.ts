// The Skill decider: creating (with its first draft, optionally published at once), saving the draft, publishing it,
// setting the active version, the marketplace listing, installing a listed Skill as a new one, and deleting. Pure: ids
// (skillId, versionId) and the blob references come in with the commands; the bytes are stored before the command is
// sent. What the decider cannot see is the handlers' part: who may act on the Skill's Space or Agent, the uniqueness
// of the live name in its place (claimed at creation, and whenever a publish or a change of the active version
// changes `name`: fold the decided events and compare), and purging the blobs after SkillDeleted.
// Over 300 lines on purpose: every rule of the Skill aggregate (versions, marketplace, installs, deletion)
// decided
// in one pure function, as the other deciders do.
import { ConflictError, PlatformError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveSkill,
  findSkillVersion,
  initialSkillState,
  type BlobRef,
  type SkillContent,
  type SkillCreatorType,
  type SkillDeletionReason,
  type SkillEvent,
  type SkillPlacement,
  type SkillProvenance,
  type SkillRecord,
  type SkillSource,
  type SkillState,
  type SkillVersion,
} from './skill.events.js';

export class SkillNotFoundError extends PlatformError {
  constructor(skillId: string) {
    super('not_found', 'skill_not_found', `Skill '${skillId}' was not found`, 'skillId');
  }
}

export class SkillVersionNotFoundError extends PlatformError {
  constructor(skillId: string, versionId: string) {
    super(
      'not_found',
      'skill_version_not_found',
      `Skill '${skillId}' has no version '${versionId}'`,
      'versionId',
    );
  }
}

type Id = { readonly skillId: string };

export type SkillCommand =
  | (Id & {
      readonly type: 'CreateSkill';
      /** The id of the first version (its draft). */
      readonly versionId: string;
      readonly placement: SkillPlacement;
      /** MARKETPLACE Skills come only from InstallSkill. */
      readonly source: Exclude<SkillSource, 'MARKETPLACE'>;
      readonly provider: string | null;
      readonly sourceId: string | null;
      readonly creatorType: SkillCreatorType;
      readonly creatorId: string | null;
      readonly content: SkillContent;
      /** Publish the first version at once (it becomes active); otherwise it stays a draft. */
      readonly publish: boolean;
    })
  | (Id & {
      readonly type: 'SaveSkillDraft';
      /** The id of a new draft; unused when a draft exists (its content is replaced under its own id). */
      readonly versionId: string;
      readonly content: SkillContent;
    })
  | (Id & { readonly type: 'PublishSkillVersion' })
  | (Id & { readonly type: 'SetActiveSkillVersion'; readonly versionId: string })
  | (Id & {
      readonly type: 'ListOnMarketplace';
      /** A published version; null: the active one. */
      readonly versionId: string | null;
    })
  | (Id & { readonly type: 'ArchiveFromMarketplace' })
  /** An archived entry back on the marketplace, at the version it offered when it was archived. */
  | (Id & { readonly type: 'RestoreToMarketplace' })
  | (Id & {
      readonly type: 'InstallSkill';
      /** The id of the installation's one version, published at once. */
      readonly versionId: string;
      readonly placement: SkillPlacement;
      /** The marketplace the listed Skill comes from. */
      readonly provider: string;
      readonly creatorType: SkillCreatorType;
      readonly creatorId: string | null;
      /** The listing: the listed Skill's id and its listed version's content (see `marketplaceListing`). */
      readonly listing: MarketplaceListing;
    })
  | (Id & {
      readonly type: 'DeleteSkill';
      /** owner_deleted: the platform's cascade, which finds a Skill already gone a no-op instead of a 404. */
      readonly reason: SkillDeletionReason;
    });

/** What an installation copies: the listed Skill and the content of the version it lists. */
export interface MarketplaceListing {
  readonly skillId: string;
  readonly versionId: string;
  readonly content: SkillContent;
}

/**
 * The listing of a Skill as another Skill's InstallSkill needs it: read from the listed Skill's own state by the
 * handler, so an installation copies exactly the listed version. 404 when the Skill is gone, 409 when not listed.
 */
export function marketplaceListing(state: SkillState, skillId: string): MarketplaceListing {
  const skill = live(state, skillId);
  const version = findSkillVersion(skill, skill.listedVersionId);
  if (skill.marketplace !== 'listed' || !version)
    throw new ConflictError(
      'skill_not_listed',
      `Skill '${skillId}' is not listed on the marketplace`,
      'skillId',
    );
  const { name, description, instructions, files } = version;
  return { skillId, versionId: version.versionId, content: { name, description, instructions, files } };
}

function live(state: SkillState, skillId: string): SkillRecord {
  if (state.status !== 'live') throw new SkillNotFoundError(skillId);
  return state;
}

function version(skill: SkillRecord, versionId: string): SkillVersion {
  const found = findSkillVersion(skill, versionId);
  if (!found) throw new SkillVersionNotFoundError(skill.skillId, versionId);
  return found;
}

function published(skill: SkillRecord, versionId: string): SkillVersion {
  const found = version(skill, versionId);
  if (found.state !== 'published')
    throw new ConflictError(
      'skill_version_not_published',
      `Version ${found.number} of Skill '${skill.skillId}' is a draft: publish it first`,
      'versionId',
    );
  return found;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkBlobRef(ref: BlobRef, param: string): void {
  if (
    !SHA256_HEX.test(ref.sha256) ||
    ref.blobId !== `sha256-${ref.sha256}` ||
    !Number.isSafeInteger(ref.sizeBytes) ||
    ref.sizeBytes < 0
  )
    throw new ValidationError('invalid_blob_ref', `${param} does not reference a stored blob`, param);
}

/** Relative and inside the bundle: a reference file is placed in the sandbox under this path. */
function isSafeFilePath(path: string): boolean {
  if (path.length === 0 || path.startsWith('/') || path.includes('\\') || path.includes('\u0000'))
    return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** The content with its manifest trimmed, or a ValidationError. */
function checkedContent(content: SkillContent): SkillContent {
  const name = content.name.trim();
  const description = content.description.trim();
  if (name.length === 0) throw new ValidationError('invalid_skill_name', 'name must not be empty', 'name');
  if (description.length === 0)
    throw new ValidationError(
      'invalid_skill_description',
      'description must not be empty: it tells the Agent when to use the Skill',
      'description',
    );
  checkBlobRef(content.instructions, 'instructions');
  const paths = new Set<string>();
  for (const file of content.files) {
    if (!isSafeFilePath(file.path))
      throw new ValidationError(
        'invalid_skill_file_path',
        `'${file.path}' is not a relative path inside the Skill`,
        'files',
      );
    if (paths.has(file.path))
      throw new ValidationError('duplicate_skill_file_path', `'${file.path}' appears twice`, 'files');
    paths.add(file.path);
    checkBlobRef(file, 'files');
  }
  return { ...content, name, description };
}

const sameBlob = (a: BlobRef, b: BlobRef): boolean =>
  a.blobId === b.blobId && a.sizeBytes === b.sizeBytes && a.sha256 === b.sha256;

function sameContent(a: SkillContent, b: SkillContent): boolean {
  return (
    a.name === b.name &&
    a.description === b.description &&
    sameBlob(a.instructions, b.instructions) &&
    a.files.length === b.files.length &&
    a.files.every((file, i) => file.path === b.files[i]!.path && sameBlob(file, b.files[i]!))
  );
}

function checkCreator(creatorType: SkillCreatorType, creatorId: string | null): void {
  if (creatorType === 'USER' && creatorId === null)
    throw new ValidationError('invalid_skill_creator', "a user's Skill names its creator", 'creatorId');
}

function exists(state: SkillState, skillId: string): void {
  if (state.status !== 'absent') throw new ConflictError('skill_exists', `Skill '${skillId}' already exists`);
}

/** A new Skill with its first version: SkillCreated, the draft, and its publication when asked. */
function created(
  skillId: string,
  versionId: string,
  placement: SkillPlacement,
  provenance: SkillProvenance,
  content: SkillContent,
  publish: boolean,
): SkillEvent[] {
  const events: SkillEvent[] = [
    {
      type: 'SkillCreated',
      data: { skillId, name: content.name, description: content.description, placement, ...provenance },
    },
    { type: 'SkillDraftSaved', data: { skillId, versionId, number: 1, ...content } },
  ];
  if (publish) events.push({ type: 'SkillVersionPublished', data: { skillId, versionId, number: 1 } });
  return events;
}

type SkillOf<Type extends SkillCommand['type']> = Extract<SkillCommand, { readonly type: Type }>;

function createSkill(command: SkillOf<'CreateSkill'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  exists(state, skillId);
  const { source, provider, sourceId, creatorType, creatorId } = command;
  checkCreator(creatorType, creatorId);
  return created(
    skillId,
    command.versionId,
    command.placement,
    { source, provider, sourceId, creatorType, creatorId },
    checkedContent(command.content),
    command.publish,
  );
}

function saveSkillDraft(command: SkillOf<'SaveSkillDraft'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  const skill = live(state, skillId);
  const content = checkedContent(command.content);
  const draft = findSkillVersion(skill, skill.draftVersionId);
  if (draft) {
    if (sameContent(draft, content)) return [];
    return [
      {
        type: 'SkillDraftSaved',
        data: { skillId, versionId: draft.versionId, number: draft.number, ...content },
      },
    ];
  }
  // A retried save whose draft was published since: that version exists, nothing to save again.
  if (findSkillVersion(skill, command.versionId)) return [];
  return [
    {
      type: 'SkillDraftSaved',
      data: { skillId, versionId: command.versionId, number: skill.versions.length + 1, ...content },
    },
  ];
}

function publishSkillVersion(command: SkillOf<'PublishSkillVersion'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  const skill = live(state, skillId);
  const draft = findSkillVersion(skill, skill.draftVersionId);
  if (!draft) throw new ConflictError('no_draft', `Skill '${skillId}' has no draft to publish`, 'skillId');
  return [
    {
      type: 'SkillVersionPublished',
      data: { skillId, versionId: draft.versionId, number: draft.number },
    },
  ];
}

function setActiveSkillVersion(command: SkillOf<'SetActiveSkillVersion'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  const skill = live(state, skillId);
  const target = published(skill, command.versionId);
  const current = findSkillVersion(skill, skill.activeVersionId);
  // A published version exists only once something was published, so there is always an active one here.
  if (!current || current.versionId === target.versionId) return [];
  return [
    {
      type: 'SkillActiveVersionSet',
      data: {
        skillId,
        versionId: target.versionId,
        previousVersionId: current.versionId,
        reason: target.number < current.number ? 'rollback' : 'roll_forward',
      },
    },
  ];
}

function listOnMarketplace(command: SkillOf<'ListOnMarketplace'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  const skill = live(state, skillId);
  // An installed copy is someone else's Skill: its origin is the one to list.
  if (skill.source === 'MARKETPLACE')
    throw new ConflictError(
      'skill_not_listable',
      `Skill '${skillId}' was installed from the marketplace and cannot be listed again`,
      'skillId',
    );
  const versionId = command.versionId ?? skill.activeVersionId;
  if (versionId === null)
    throw new ConflictError(
      'skill_not_published',
      `Skill '${skillId}' has no published version to list`,
      'skillId',
    );
  const listed = published(skill, versionId);
  if (skill.marketplace === 'listed' && skill.listedVersionId === listed.versionId) return [];
  return [{ type: 'SkillListedOnMarketplace', data: { skillId, versionId: listed.versionId } }];
}

function archiveFromMarketplace(command: SkillOf<'ArchiveFromMarketplace'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  const skill = live(state, skillId);
  if (skill.marketplace === 'archived') return [];
  if (skill.marketplace !== 'listed')
    throw new ConflictError(
      'skill_not_listed',
      `Skill '${skillId}' is not listed on the marketplace`,
      'skillId',
    );
  return [{ type: 'SkillArchivedFromMarketplace', data: { skillId } }];
}

function restoreToMarketplace(command: SkillOf<'RestoreToMarketplace'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  const skill = live(state, skillId);
  if (skill.marketplace === 'listed') return [];
  // Archived entries were listed once, so they name the version they offered; a Skill never listed has none.
  if (skill.marketplace !== 'archived' || skill.listedVersionId === null)
    throw new ConflictError(
      'skill_not_archived',
      `Skill '${skillId}' was never listed on the marketplace: list it instead`,
      'skillId',
    );
  return [{ type: 'SkillRestoredToMarketplace', data: { skillId, versionId: skill.listedVersionId } }];
}

function installSkill(command: SkillOf<'InstallSkill'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  exists(state, skillId);
  checkCreator(command.creatorType, command.creatorId);
  return created(
    skillId,
    command.versionId,
    command.placement,
    {
      source: 'MARKETPLACE',
      provider: command.provider,
      sourceId: command.listing.skillId,
      creatorType: command.creatorType,
      creatorId: command.creatorId,
    },
    checkedContent(command.listing.content),
    true,
  );
}

function deleteSkill(command: SkillOf<'DeleteSkill'>, state: SkillState): SkillEvent[] {
  const { skillId } = command;
  if (command.reason === 'owner_deleted' && state.status !== 'live') return [];
  const skill = live(state, skillId);
  if (command.reason === 'uninstalled' && skill.source !== 'MARKETPLACE')
    throw new ConflictError(
      'skill_not_installed',
      `Skill '${skillId}' was not installed from the marketplace: delete it instead`,
      'skillId',
    );
  // Others can install a listed Skill: it leaves the marketplace by being archived, never by a deletion.
  if (command.reason === 'requested' && skill.marketplace === 'listed')
    throw new ConflictError(
      'skill_listed_on_marketplace',
      `Skill '${skillId}' is listed on the marketplace: archive it first`,
      'skillId',
    );
  return [{ type: 'SkillDeleted', data: { skillId, reason: command.reason } }];
}

const decide = decideByType<SkillState, SkillCommand, SkillEvent>({
  CreateSkill: createSkill,
  SaveSkillDraft: saveSkillDraft,
  PublishSkillVersion: publishSkillVersion,
  SetActiveSkillVersion: setActiveSkillVersion,
  ListOnMarketplace: listOnMarketplace,
  ArchiveFromMarketplace: archiveFromMarketplace,
  RestoreToMarketplace: restoreToMarketplace,
  InstallSkill: installSkill,
  DeleteSkill: deleteSkill,
});

export const skillDecider: Decider<SkillState, SkillCommand, SkillEvent> = {
  initialState: initialSkillState,
  evolve: evolveSkill,
  decide,
};
