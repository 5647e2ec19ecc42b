// DELETE /me/sessions/{sessionId}: sign out one of one's sessions (another device, or this one).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { SESSIONS_READ_MODEL } from '../../users.read-model.js';
import { EndOwnSession } from './end-own-session.command.js';

@Controller('api/v1/core')
export class EndOwnSessionController {
  constructor(private readonly sender: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Sign-in',
    summary: 'Sign out one of my sessions',
    description: 'By the handle GET /me/sessions lists. Its browser is signed out at its next request.',
    response: { status: 204, description: 'Signed out' },
    errors: [401, 403, { status: 404, description: 'No open session of the caller has this handle' }],
  })
  @HttpCode(204)
  @Delete('me/sessions/:sessionId')
  async end(@Param('sessionId') handle: string, @CurrentCaller() caller: Caller) {
    await this.sender.send(
      new EndOwnSession(handle, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [SESSIONS_READ_MODEL],
    );
  }
}
