// The answer of an Agent's App tools (GET /agents/{agentId}/tools, PATCH /agents/{agentId}/tools/{name}).
import { z } from 'zod';
import { TOOL_APPROVALS } from '../../agent-tools.events.js';
import type { AgentTool } from '../../agent-tool-catalog.js';

export const AgentToolDto = z.object({
  name: z.string().describe('The name the model sees: `<appId>__<tool>`'),
  appId: z.string(),
  appName: z.string(),
  tool: z.string().describe("The tool's name at its App (an MCP server's, or a URL App's `/meta`)"),
  description: z.string(),
  destructive: z
    .boolean()
    .describe('The App annotates it destructive (`destructiveHint`): it defaults to `ask`'),
  enabled: z.boolean().describe('Offered to the model (default true)'),
  approval: z
    .enum(TOOL_APPROVALS)
    .describe(
      '`auto`: called when the model asks; `ask`: the person whose turn it is approves each call; `never`: not offered',
    ),
});

export const AgentToolsDto = z.object({ data: z.array(AgentToolDto) });

export type AgentToolOutput = z.output<typeof AgentToolDto>;

export const toAgentToolDto = (tool: AgentTool): AgentToolOutput => ({
  name: tool.name,
  appId: tool.app.id,
  appName: tool.app.name,
  tool: tool.offer.name,
  description: tool.offer.description || tool.offer.title || '',
  destructive: tool.destructive,
  enabled: tool.enabled,
  approval: tool.approval,
});
