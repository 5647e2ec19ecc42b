// What others hear of Skills (integration events, see #integration-events): created, a version published, the active
// version set back or forward, deleted. Never a Skill's content.
import { defineIntegrationEvents } from '#integration-events';
import type { SkillEvent, SkillPlacement } from './skill.events.js';

const placed = (placement: SkillPlacement) => ({
  spaceId: placement.kind === 'space' ? placement.spaceId : null,
  agentId: placement.kind === 'agent' ? placement.agentId : null,
});

export const SKILL_INTEGRATION_EVENTS = defineIntegrationEvents<SkillEvent>('skill', {
  SkillCreated: ({ data }) => ({
    fact: 'created',
    subject: { skillId: data.skillId, ...placed(data.placement) },
    data: { placement: data.placement.kind },
  }),
  SkillVersionPublished: ({ data }) => ({
    fact: 'version-published',
    subject: { skillId: data.skillId, versionId: data.versionId },
    data: { number: data.number },
  }),
  SkillActiveVersionSet: ({ data }) => ({
    fact: 'active-version-set',
    subject: { skillId: data.skillId, versionId: data.versionId },
    data: { previousVersionId: data.previousVersionId, reason: data.reason },
  }),
  SkillDeleted: ({ data }) => ({
    fact: 'deleted',
    subject: { skillId: data.skillId },
    data: { reason: data.reason },
  }),
  SkillDraftSaved: null,
  SkillListedOnMarketplace: null,
  SkillArchivedFromMarketplace: null,
  SkillRestoredToMarketplace: null,
});
