// The Skills read side: Skills and their versions as the read models hold them, and a version's instructions or
// reference file from the blob store. Query handlers, the gate's loader (SkillResolver), the context provider and
// AvailableSkills read through it; it writes nothing (writes go through commands to SkillRepository).
import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { findAll, READ_STORE, type Filter, type ReadStore } from '#read-store';
import type { BlobRef } from './skill.events.js';
import { SKILL_VERSIONS, SKILLS, type SkillVersionView, type SkillView } from './skills.read-model.js';

@Injectable()
export class SkillReader {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  skill(skillId: string): Promise<SkillView | null> {
    return this.readStore.reader<SkillView>(SKILLS).get(skillId);
  }

  version(versionId: string): Promise<SkillVersionView | null> {
    return this.readStore.reader<SkillVersionView>(SKILL_VERSIONS).get(versionId);
  }

  /** A Skill's versions, oldest first. */
  async versions(skillId: string): Promise<SkillVersionView[]> {
    return (await findAll<SkillVersionView>(this.readStore, SKILL_VERSIONS, { skillId })).toSorted(
      (a, b) => a.number - b.number,
    );
  }

  /** Skills placed where `filter` says (a Space, an Agent, global). */
  placed(filter: Filter): Promise<SkillView[]> {
    return findAll<SkillView>(this.readStore, SKILLS, filter);
  }

  /** A version's instructions or a reference file, as text; null when its blob is gone. */
  async text(ref: BlobRef): Promise<string | null> {
    const bytes = await this.blobs.get(ref.blobId);
    return bytes ? bytes.toString('utf8') : null;
  }
}
