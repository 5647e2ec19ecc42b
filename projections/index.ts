// Every projector and process manager of the platform, in one list: the api, the worker and the CLI run the same set.
import type { Type } from '@nestjs/common';
import type { Projector } from '../libs/eventsourcing/src/projector.js';
import { PersonalAgentProcess } from '../libs/agents/src/personal-agent.process.js';
import { SpaceDeletionProcess } from '../libs/agents/src/space-deletion.process.js';
import { KnowledgeOwnerDeletionProcess } from '../libs/knowledge/src/knowledge-owner-deletion.process.js';
import { agentsProjector } from './agents/agents.projector.js';
import { apiKeysProjector } from './api-keys/api-keys.projector.js';
import { spacesProjector } from './spaces/spaces.projector.js';
import { usersProjector } from './users/users.projector.js';
import { usageProjector } from './usage/usage.projector.js';
import { knowledgeProjector } from './knowledge/knowledge.projector.js';
import { summaryIndexProjector } from './knowledge/summary-index.projector.js';
import { KnowledgeTagDeletionProcess } from '../libs/knowledge/src/tag-deletion.process.js';
import { ingestionProcess } from '../libs/knowledge/src/ingestion.process.js';

export const ALL_PROJECTORS: readonly (Projector | Type<Projector>)[] = [
  spacesProjector,
  agentsProjector,
  usersProjector,
  apiKeysProjector,
  usageProjector,
  knowledgeProjector,
  summaryIndexProjector,
  SpaceDeletionProcess,
  KnowledgeOwnerDeletionProcess,
  KnowledgeTagDeletionProcess,
  ingestionProcess,
  PersonalAgentProcess,
];
