// PATCH /agents/{agentId}/tools/{name} (our design; the Agent's managers): switch an App tool on or off, or set how
// its calls are approved.
import { Body, Controller, Param, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { TOOL_APPROVALS } from '../../agent-tools.events.js';
import { AGENT_TOOL_SETTINGS_READ_MODEL } from '../../agent-tools.read-model.js';
import { AgentToolDto } from '../../queries/list-agent-tools/agent-tool.dto.js';
import { ListAgentTools } from '../../queries/list-agent-tools/list-agent-tools.query.js';
import { agentToolNotFound, ChangeAgentTool } from './change-agent-tool.command.js';

export const ChangeAgentToolBody = z
  .object({
    enabled: z.boolean().optional().describe('Offer the tool to the model'),
    approval: z.enum(TOOL_APPROVALS).optional().describe('How its calls are approved'),
  })
  .strict()
  .refine((body) => body.enabled !== undefined || body.approval !== undefined, {
    message: 'give enabled or approval',
  });

@Controller('api/v1/core/agents/:agentId/tools')
export class ChangeAgentToolController {
  constructor(
    private readonly writes: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Apps',
    summary: "Switch an Agent's App tool on or off, or set how its calls are approved (its managers)",
    description:
      '`approval`: `auto` (called when the model asks), `ask` (each call waits for the approval of the person whose ' +
      'turn it is: the stream emits `tool_approval_required`), `never` (not offered). A tool its server annotates ' +
      'destructive starts as `ask`, any other as `auto`.',
    body: ChangeAgentToolBody,
    response: { status: 200, schema: AgentToolDto, description: 'The tool with its settings' },
    errors: [
      400,
      { status: 403, description: '`agent_access_denied`, `space_change_denied`' },
      { status: 404, description: 'Unknown Agent, or `agent_tool_not_found`' },
    ],
  })
  @Patch(':name')
  async change(
    @Param('agentId') agentId: string,
    @Param('name') name: string,
    @Body(new ZodBody(ChangeAgentToolBody)) body: z.output<typeof ChangeAgentToolBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await this.writes.send(
      new ChangeAgentTool(
        agentId,
        name,
        {
          ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
          ...(body.approval !== undefined ? { approval: body.approval } : {}),
        },
        commandContext(caller),
        principalOf(caller),
      ),
      [AGENT_TOOL_SETTINGS_READ_MODEL],
    );
    const principal = principalOf(caller);
    const { data } = await this.queries.execute(new ListAgentTools(agentId, principal));
    const tool = data.find((candidate) => candidate.name === name);
    if (!tool) throw agentToolNotFound(name);
    return tool;
  }
}
