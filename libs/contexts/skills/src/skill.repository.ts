// The Skills write repository: what the command handlers hand to the log. A bundle's instructions and reference
// files go to the blob store (content-addressed; never into an event) and the version event refers to them; every
// decision goes through the Skill decider into the log. Deleting a Skill purges its blobs, except those another live
// Skill version still uses (an installed copy shares its original's). It serves no reads: those are SkillReader's.
import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { AggregateRepository, ReadYourWritesBus, type CommandContext } from '#eventsourcing';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import type { SkillBundle } from './bundle/skill-zip.js';
import { skillDecider, type SkillCommand } from './skill.decider.js';
import {
  skillStreamId,
  type BlobRef,
  type SkillContent,
  type SkillDeletionReason,
  type SkillVersion,
} from './skill.events.js';
import { SKILL_VERSIONS, SKILL_VERSIONS_READ_MODEL, type SkillVersionView } from './skills.read-model.js';

@Injectable()
export class SkillRepository {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly writes: ReadYourWritesBus,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** Stores a bundle's instructions and files as blobs; the content a version command refers to. */
  async content(
    bundle: Pick<SkillBundle, 'files'> & {
      manifest: { name: string; description: string; instructions: string };
    },
  ): Promise<SkillContent> {
    const ref = async (bytes: Uint8Array): Promise<BlobRef> => {
      const stored = await this.blobs.put(bytes);
      return { blobId: stored.id, sizeBytes: stored.sizeBytes, sha256: stored.sha256 };
    };
    return {
      name: bundle.manifest.name,
      description: bundle.manifest.description,
      instructions: await ref(Buffer.from(bundle.manifest.instructions, 'utf8')),
      files: await Promise.all(
        bundle.files.map(async (file) => ({ path: file.path, ...(await ref(file.bytes)) })),
      ),
    };
  }

  decide(command: SkillCommand, context: CommandContext) {
    return this.aggregates.decide(skillStreamId(command.skillId), skillDecider, command, context);
  }

  /**
   * Deletes the Skill, then purges the blobs of its versions that no live version still uses. Which versions are
   * live is the versions read model's answer: the purge waits until it has applied the deletion (and so every write
   * before it, an installation sharing these blobs included).
   */
  async delete(skillId: string, reason: SkillDeletionReason, context: CommandContext): Promise<number> {
    const { state } = await this.aggregates.load(skillStreamId(skillId), skillDecider);
    const result = await this.decide({ type: 'DeleteSkill', skillId, reason }, context);
    if (result.events.length === 0 || state.status !== 'live') return result.position;
    await this.writes.settle(result.position, [SKILL_VERSIONS_READ_MODEL]);
    await this.purge(state.versions);
    return result.position;
  }

  private async purge(versions: readonly SkillVersion[]): Promise<void> {
    const ids = new Set(
      versions.flatMap((version) => [version.instructions.blobId, ...version.files.map((f) => f.blobId)]),
    );
    if (ids.size === 0) return;
    const gone = new Set(versions.map((version) => version.versionId));
    const live = (await findAll<SkillVersionView>(this.readStore, SKILL_VERSIONS, {})).filter(
      (version) => !gone.has(version.id),
    );
    for (const version of live) {
      ids.delete(version.instructions.blobId);
      for (const file of version.files) ids.delete(file.blobId);
    }
    for (const id of ids) await this.blobs.delete(id);
  }
}
