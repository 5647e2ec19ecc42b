// A manager switches one of an Agent's App tools on or off, or sets how its calls are approved. The tool must be one
// the Agent is offered now (404 `agent_tool_not_found` otherwise); its defaults come with the command, so the decider
// records only a real change.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository, type CommandContext, type WriteResult } from '#eventsourcing';
import { PlatformError } from '#kernel';
import { Requires, type Principal } from '#access';
import { AgentResolver } from '#agents';
import { agentToolsDecider } from '../../agent-tools.decider.js';
import { agentToolsStreamId, type ToolApproval } from '../../agent-tools.events.js';
import { AgentToolCatalog, toolDefaults } from '../../agent-tool-catalog.js';

export const agentToolNotFound = (name: string): PlatformError =>
  new PlatformError(
    'not_found',
    'agent_tool_not_found',
    `The Agent is offered no App tool named '${name}'`,
    'name',
  );

@Requires(AgentResolver, (agents, { agentId }: ChangeAgentTool) => agents.manage(agentId))
export class ChangeAgentTool extends Command<WriteResult> {
  constructor(
    readonly agentId: string,
    readonly name: string,
    readonly change: { readonly enabled?: boolean; readonly approval?: ToolApproval },
    readonly context: CommandContext,
    readonly principal: Principal,
  ) {
    super();
  }
}

@CommandHandler(ChangeAgentTool)
export class ChangeAgentToolHandler implements ICommandHandler<ChangeAgentTool> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly catalog: AgentToolCatalog,
  ) {}

  async execute({ agentId, name, change, context }: ChangeAgentTool): Promise<WriteResult> {
    const tool = (await this.catalog.tools(agentId)).find((candidate) => candidate.name === name);
    if (!tool) throw agentToolNotFound(name);
    const result = await this.aggregates.decide(
      agentToolsStreamId(agentId),
      agentToolsDecider,
      { type: 'ChangeAgentTool', agentId, tool: name, defaults: toolDefaults(tool.offer), ...change },
      context,
    );
    return { id: name, position: result.position };
  }
}
