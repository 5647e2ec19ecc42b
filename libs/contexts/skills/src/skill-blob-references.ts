// What Skills declare to the blob gc (BlobReferences, libs/adapters/blob-store/src/blob-gc.ts): a live Skill references the
// instructions and reference files of every version it has (drafts, published, the DEFAULT Skills the platform seeds,
// installed copies sharing their original's blobs); a deleted one references nothing (its deletion purged them).
import type { EventEnvelope } from '#kernel';
import type { BlobReferences } from '#blob-store';
import {
  evolveSkill,
  initialSkillState,
  SKILL_EVENT_TYPES,
  type SkillEvent,
  type SkillState,
} from './skill.events.js';

export const skillBlobReferences: BlobReferences = {
  kind: 'skill versions (instructions and reference files)',
  eventTypes: SKILL_EVENT_TYPES,
  start: () => {
    const skills = new Map<string, SkillState>();
    return {
      apply: (event) => {
        const skill = event as EventEnvelope & SkillEvent;
        skills.set(
          skill.data.skillId,
          evolveSkill(skills.get(skill.data.skillId) ?? initialSkillState(), skill),
        );
      },
      referenced: () =>
        [...skills.values()].flatMap((state) =>
          state.status === 'live'
            ? state.versions.flatMap((version) => [
                version.instructions.blobId,
                ...version.files.map((file) => file.blobId),
              ])
            : [],
        ),
    };
  },
};
