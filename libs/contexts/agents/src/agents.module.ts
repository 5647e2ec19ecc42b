// The Agents bounded context: its command and query slices, and the rules its writes check. Its process managers
// (personal Agents, Space deletion) run with the projectors (apps/projectors.ts). Global so that the Spaces context
// finds the SpaceGrants it asks (Agents depend on Spaces, never the reverse), and contexts that depend on Agents
// find the AgentMoveChecks they register with.
import { Global, Module } from '@nestjs/common';
import { AgentDirectory, AccessModule } from '#access';
import { SpaceGrants } from '#spaces';
import { ReadModelAgentDirectory } from './agent-directory.adapter.js';
import { AgentMoveChecks } from './agent-move-checks.js';
import { AgentRules } from './agent-rules.js';
import { AgentResolver } from './agent-resolver.js';
import { AgentSpaceGrants } from './agent-space-grants.js';
import { ChangeAgentController } from './commands/change-agent/change-agent.controller.js';
import { ChangeAgentHandler } from './commands/change-agent/change-agent.command.js';
import { ChangeAgentPromptController } from './commands/change-agent-prompt/change-agent-prompt.controller.js';
import { ChangeAgentPromptHandler } from './commands/change-agent-prompt/change-agent-prompt.command.js';
import { CreateAgentController } from './commands/create-agent/create-agent.controller.js';
import { CreateAgentHandler } from './commands/create-agent/create-agent.command.js';
import { CreatePersonalAgentHandler } from './commands/create-personal-agent/create-personal-agent.command.js';
import { DeleteAgentController } from './commands/delete-agent/delete-agent.controller.js';
import { DeleteAgentHandler } from './commands/delete-agent/delete-agent.command.js';
import { ReplacePersonalAgentHandler } from './commands/replace-personal-agent/replace-personal-agent.command.js';
import { PlacePersonalAgentHandler } from './commands/place-personal-agent/place-personal-agent.command.js';
import { GetAgentController } from './queries/get-agent/get-agent.controller.js';
import { GetAgentHandler } from './queries/get-agent/get-agent.query.js';
import { StartEmbedSessionController } from './queries/start-embed-session/start-embed-session.controller.js';
import { StartEmbedSessionHandler } from './queries/start-embed-session/start-embed-session.query.js';
import { IdentityModule } from '#identity';
import { ListAgentsController } from './queries/list-agents/list-agents.controller.js';
import { ListAgentsHandler } from './queries/list-agents/list-agents.query.js';
import { UseAgentHandler } from './queries/use-agent/use-agent.query.js';
import { FindUsableAgentHandler, GetEmbeddableAgentHandler } from './queries/web-pages/web-pages.query.js';
import { AgentReadsKept } from './agent-reads.js';

export const AGENT_CONTROLLERS = [
  ListAgentsController,
  CreateAgentController,
  GetAgentController,
  StartEmbedSessionController,
  ChangeAgentController,
  ChangeAgentPromptController,
  DeleteAgentController,
];

export const AGENT_COMMAND_HANDLERS = [
  CreateAgentHandler,
  CreatePersonalAgentHandler,
  ReplacePersonalAgentHandler,
  ChangeAgentHandler,
  ChangeAgentPromptHandler,
  DeleteAgentHandler,
  PlacePersonalAgentHandler,
];

export const AGENT_QUERY_HANDLERS = [
  ListAgentsHandler,
  GetAgentHandler,
  StartEmbedSessionHandler,
  FindUsableAgentHandler,
  GetEmbeddableAgentHandler,
  UseAgentHandler,
];

@Global()
@Module({
  // The embed visitor sessions are access's (authentication); identity answers the Credentials its guard asks.
  imports: [IdentityModule, AccessModule],
  controllers: AGENT_CONTROLLERS,
  providers: [
    ...AGENT_COMMAND_HANDLERS,
    ...AGENT_QUERY_HANDLERS,
    AgentRules,
    AgentResolver,
    AgentReadsKept,
    AgentMoveChecks,
    { provide: SpaceGrants, useClass: AgentSpaceGrants },
    { provide: AgentDirectory, useClass: ReadModelAgentDirectory },
  ],
  exports: [SpaceGrants, AgentMoveChecks, AgentDirectory, AgentResolver],
})
export class AgentsModule {}
