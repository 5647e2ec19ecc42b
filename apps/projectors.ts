// The composition root's one list of what runs over the log: every read-model projector, then the contexts' process
// managers, then the integration-event relay. The api, the worker and the CLI run the same set, in this order (the
// CLI lists it), with the modules whose command handlers the process managers send to.
import type { Type } from '@nestjs/common';
import type { Projector } from '#eventsourcing';
import { AgentsModule, PersonalAgentProcess, SpaceDeletionProcess } from '#agents';
import {
  ingestionProcess,
  KnowledgeModule,
  KnowledgeOwnerDeletionProcess,
  KnowledgeTagDeletionProcess,
} from '#knowledge';
import {
  AgentConversationsDeletionProcess,
  ConversationErasureProcess,
  ConversationsModule,
} from '#conversations';
import {
  AgentMemoriesDeletionProcess,
  MemoryErasureProcess,
  MemoryModule,
  MemoryProposalProcess,
} from '#memory';
import { SkillOwnerDeletionProcess, SkillsModule } from '#skills';
import { LegacySpaceOwnerProcess, PersonalSpaceProcess, SpacesModule } from '#spaces';
import { CodeExecutionModule, SandboxLifecycleProcess } from '#code-execution';
import { AppAllowlistProcess, AppOAuthDeactivationProcess, SyncedResourcesProcess } from '#apps';
import { StoredResponseErasureProcess } from '#model-gateway';
import { READ_MODEL_PROJECTORS } from '#projections';
import { PlatformIntegrationEventRelay } from './integration-events.js';

export const ALL_PROJECTORS: readonly (Projector | Type<Projector>)[] = [
  ...READ_MODEL_PROJECTORS,
  SpaceDeletionProcess,
  KnowledgeOwnerDeletionProcess,
  KnowledgeTagDeletionProcess,
  ingestionProcess,
  PersonalSpaceProcess,
  LegacySpaceOwnerProcess,
  PersonalAgentProcess,
  ConversationErasureProcess,
  AgentConversationsDeletionProcess,
  MemoryErasureProcess,
  MemoryProposalProcess,
  AgentMemoriesDeletionProcess,
  SkillOwnerDeletionProcess,
  SandboxLifecycleProcess,
  AppAllowlistProcess,
  SyncedResourcesProcess,
  AppOAuthDeactivationProcess,
  StoredResponseErasureProcess,
  PlatformIntegrationEventRelay,
];

/** What a process that runs ALL_PROJECTORS imports beside the platform: the handlers of the commands they send. */
export const PROCESS_MODULES: readonly Type[] = [
  SpacesModule,
  AgentsModule,
  KnowledgeModule,
  ConversationsModule,
  MemoryModule,
  SkillsModule,
  CodeExecutionModule,
];
