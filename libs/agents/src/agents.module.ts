// The Agents bounded context: commands, routes and the process managers that create and remove Agents.
import { Module } from '@nestjs/common';
import { AgentCommandHandler } from './agent.commands.js';
import { AgentsController } from './http/agents.controller.js';

@Module({ controllers: [AgentsController], providers: [AgentCommandHandler] })
export class AgentsModule {}
