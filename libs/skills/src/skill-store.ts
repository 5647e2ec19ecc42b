// Skills as the routes and the runtime use them: bundles go to the blob store (instructions and each reference file,
// content-addressed; never into an event), decisions through the Skill decider into the log, reads from the read
// models. Deleting a Skill purges its blobs, except those another live Skill version still uses (an installed copy
// shares its original's).
import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { CommandContext } from '#eventsourcing';
import { newId } from '#kernel';
import { AggregateRepository, ReadYourWritesBus } from '#eventsourcing';
import { findAll, READ_STORE, type Filter, type ReadStore } from '#read-store';
import type { SkillBundle } from './bundle/skill-zip.js';
import { skillDecider, type SkillCommand } from './skill.decider.js';
import { skillStreamId, type BlobRef, type SkillContent } from './skill.events.js';
import {
  SKILL_VERSIONS,
  SKILL_VERSIONS_READ_MODEL,
  SKILLS,
  SKILLS_READ_MODEL,
  type SkillVersionView,
  type SkillView,
} from './skills.read-model.js';

const SETTLES = [SKILLS_READ_MODEL, SKILL_VERSIONS_READ_MODEL];

@Injectable()
export class SkillStore {
  constructor(
    readonly aggregates: AggregateRepository,
    private readonly sender: ReadYourWritesBus,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  /** Stores a bundle's instructions and files as blobs; the content a version event refers to. */
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

  async run(command: SkillCommand, context: CommandContext) {
    return this.aggregates.decide(skillStreamId(command.skillId), skillDecider, command, context);
  }

  settle(position: number): Promise<boolean> {
    return this.sender.settle(position, SETTLES);
  }

  newVersionId(): string {
    return newId('skv');
  }

  skill(skillId: string): Promise<SkillView | null> {
    return this.readStore.reader<SkillView>(SKILLS).get(skillId);
  }

  version(versionId: string): Promise<SkillVersionView | null> {
    return this.readStore.reader<SkillVersionView>(SKILL_VERSIONS).get(versionId);
  }

  async versions(skillId: string): Promise<SkillVersionView[]> {
    return (await findAll<SkillVersionView>(this.readStore, SKILL_VERSIONS, { skillId })).toSorted(
      (a, b) => a.number - b.number,
    );
  }

  /** Skills placed where `filter` says (a Space, an Agent, global). */
  placed(filter: Filter): Promise<SkillView[]> {
    return findAll<SkillView>(this.readStore, SKILLS, filter);
  }

  async text(ref: BlobRef): Promise<string | null> {
    const bytes = await this.blobs.get(ref.blobId);
    return bytes ? bytes.toString('utf8') : null;
  }

  /** Purges the blobs of a deleted Skill's versions that no live version still uses. */
  async purge(versions: readonly SkillVersionView[]): Promise<void> {
    const ids = new Set(
      versions.flatMap((version) => [version.instructions.blobId, ...version.files.map((f) => f.blobId)]),
    );
    if (ids.size === 0) return;
    const gone = new Set(versions.map((version) => version.id));
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
