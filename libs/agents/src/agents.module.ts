// The Agents bounded context: commands, routes and the process managers that create and remove Agents. Global so
// that the Spaces context finds the SpaceGrants it asks (Agents depend on Spaces, never the reverse).
import { Global, Module } from '@nestjs/common';
import { SpaceGrants } from '#spaces';
import { AgentCommandHandler } from './agent.commands.js';
import { AgentSpaceGrants } from './agent-space-grants.js';
import { AgentsController } from './http/agents.controller.js';

@Global()
@Module({
  controllers: [AgentsController],
  providers: [AgentCommandHandler, { provide: SpaceGrants, useClass: AgentSpaceGrants }],
  exports: [SpaceGrants],
})
export class AgentsModule {}
