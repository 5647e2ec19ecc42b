// GET /me/sessions: the signed-in person's open sessions, to end one they do not recognise.
import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { ListOwnSessions } from './list-own-sessions.query.js';

const OwnSessionDto = z.object({
  id: z
    .string()
    .describe("The session's handle (never its cookie or its id): DELETE /me/sessions/{sessionId}"),
  method: z.string().describe('How it signed in: password, invitation or oidc'),
  device: z.string().nullable().describe("The browser's User-Agent at sign-in"),
  createdAt: z.string(),
  lastSeenAt: z.string().describe('When it was last used (recorded now and then, not on every request)'),
  expiresAt: z.string(),
  current: z.boolean().describe('The session of this request'),
});
const OwnSessionsDto = z.object({ data: z.array(OwnSessionDto) });

@Controller('api/v1/core')
export class ListOwnSessionsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Sign-in',
    summary: 'My open sessions',
    description: "Newest first. An API key sees its user's sessions, none of them `current`.",
    response: { status: 200, schema: OwnSessionsDto, description: 'The open sessions' },
    errors: [401, 403],
  })
  @Get('me/sessions')
  list(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListOwnSessions(caller));
  }
}
