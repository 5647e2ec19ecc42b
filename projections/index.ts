// Every read-model projector of the platform. The process managers belong to their contexts; the composition root
// (apps/projectors.ts) runs both.
import type { Projector } from '#eventsourcing';
import { agentsProjector } from './agents/agents.projector.js';
import { apiKeysProjector } from './api-keys/api-keys.projector.js';
import { spacesProjector } from './spaces/spaces.projector.js';
import { promptsProjector } from './spaces/prompts.projector.js';
import { usersProjector } from './users/users.projector.js';
import { usageProjector } from './usage/usage.projector.js';
import { spendLimitsProjector } from './usage/spend-limits.projector.js';
import { knowledgeProjector } from './knowledge/knowledge.projector.js';
import { summaryIndexProjector } from './knowledge/summary-index.projector.js';
import { conversationsProjector } from './conversations/conversations.projector.js';
import { memoryProjector } from './memory/memory.projector.js';
import { skillsProjector } from './skills/skills.projector.js';
import { codeExecutionProjector } from './code-execution/code-execution.projector.js';
import { provenanceProjector } from './provenance/provenance.projector.js';
import { appsProjector } from './apps/apps.projector.js';
import { agentToolSettingsProjector } from './apps/agent-tool-settings.projector.js';
import { auditProjector } from './audit/audit.projector.js';
import { storedResponsesProjector } from './model-gateway/stored-responses.projector.js';

export const READ_MODEL_PROJECTORS: readonly Projector[] = [
  spacesProjector,
  promptsProjector,
  agentsProjector,
  usersProjector,
  apiKeysProjector,
  usageProjector,
  spendLimitsProjector,
  knowledgeProjector,
  summaryIndexProjector,
  conversationsProjector,
  memoryProjector,
  skillsProjector,
  codeExecutionProjector,
  provenanceProjector,
  appsProjector,
  agentToolSettingsProjector,
  auditProjector,
  storedResponsesProjector,
];
