// A Skill and its versions as the routes answer them.
import type { z } from 'zod';
import type { SkillDto, SkillVersionDto } from './skills.schemas.js';
import type { SkillVersionView, SkillView } from './skills.read-model.js';

export const toSkillDto = (
  skill: SkillView,
  versions?: readonly SkillVersionView[],
): z.output<typeof SkillDto> => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  placement: skill.placement,
  spaceId: skill.spaceId,
  agentId: skill.agentId,
  source: skill.source,
  provider: skill.provider,
  sourceId: skill.sourceId,
  creatorType: skill.creatorType,
  creatorId: skill.creatorId,
  activeVersionId: skill.activeVersionId,
  draftVersionId: skill.draftVersionId,
  marketplace: skill.marketplace,
  ...(versions ? { versions: versions.map((version) => toVersionDto(version, null)) } : {}),
  createdAt: skill.createdAt,
  updatedAt: skill.updatedAt,
});

export const toVersionDto = (
  version: SkillVersionView,
  instructions: string | null,
): z.output<typeof SkillVersionDto> => ({
  id: version.id,
  number: version.number,
  state: version.state,
  name: version.name,
  description: version.description,
  instructions,
  files: version.files.map(({ path, sizeBytes, sha256 }) => ({ path, sizeBytes, sha256 })),
  createdAt: version.createdAt,
  publishedAt: version.publishedAt,
});
