// DELETE /agents/{agentId} (spec: Delete an Agent).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { AGENTS_READ_MODEL } from '../../agents.read-model.js';
import { DeleteAgent } from './delete-agent.command.js';

@Controller('api/v1/core/agents')
export class DeleteAgentController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Agents',
    summary: 'Delete an Agent',
    response: { status: 204, description: 'Deleted' },
    errors: [
      {
        status: 403,
        description:
          '`agent_access_denied`: the key is not granted the Agent; `space_change_denied`: it is granted the Agent ' +
          'but may not manage it (managing needs the right to change its Space; admins always; a personal Agent its ' +
          'own user only)',
      },
      404,
    ],
  })
  @Delete(':agentId')
  @HttpCode(204)
  async delete(@Param('agentId') agentId: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.writes.send(
      new DeleteAgent(agentId, 'requested', commandContext(caller), principalOf(caller)),
      [AGENTS_READ_MODEL],
    );
  }
}
