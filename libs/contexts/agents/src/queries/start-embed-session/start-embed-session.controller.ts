// POST /api/v1/embed/{agentId}/session (no credential): a visitor session for a public Agent's embed.
import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { EMBED_SESSION_HEADER, Public } from '#access';
import { StartEmbedSession } from './start-embed-session.query.js';

export const StartEmbedSessionBody = z.strictObject({
  resume: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      'A session of this Agent kept by the page (Embed session minutes > 0): answered as it is while valid',
    ),
});

const EmbedSessionDto = z.object({
  token: z.string().describe(`Send it as \`${EMBED_SESSION_HEADER}\` on the Agent's conversation routes`),
  expiresAt: z.string(),
  agentName: z.string(),
  windowTitle: z.string().describe("The Embed window title (the floating bubble's header)"),
  sessionMinutes: z
    .number()
    .int()
    .describe('How long the page keeps the session and conversation id (0: never)'),
});

@Controller('api/v1/embed')
export class StartEmbedSessionController {
  constructor(private readonly queries: QueryBus) {}

  @Public()
  @ApiRoute({
    tag: 'Embed',
    summary: "Start a visitor session for a public Agent's embed",
    description:
      'No account: a short-lived session signed by the instance and bound to this Agent, for its conversation routes ' +
      `(header \`${EMBED_SESSION_HEADER}\`): a turn (POST /llm/{agentId}/conversation) and the messages of the ` +
      "visitor's own conversation. Memory is off; conversations are private to the visitor session. Messages per " +
      'visitor and per Agent per minute (EMBED_VISITOR_MESSAGES_PER_MINUTE, EMBED_AGENT_MESSAGES_PER_MINUTE) and the ' +
      "cost of all visitors of the Agent per UTC day (EMBED_DAILY_COST_USD) are limited: 429. A non-public Agent's " +
      'embed answers 403 `Agent is not public`; a request whose Origin is neither the instance nor an Allowed URL 403 ' +
      '`origin_not_allowed`.',
    public: true,
    body: StartEmbedSessionBody,
    response: { status: 200, schema: EmbedSessionDto, description: 'The visitor session' },
    errors: [400, 403, 404],
  })
  @HttpCode(200)
  @Post(':agentId/session')
  start(
    @Param('agentId') agentId: string,
    // No body is an empty one.
    @Body(new ZodBody(StartEmbedSessionBody.optional()))
    body: z.output<typeof StartEmbedSessionBody> | undefined,
    @Req() request: FastifyRequest,
  ) {
    const origin = request.headers.origin;
    return this.queries.execute(
      new StartEmbedSession(
        agentId,
        typeof origin === 'string' ? origin : null,
        `${request.protocol}://${request.headers.host ?? ''}`,
        body?.resume ?? null,
      ),
    );
  }
}
