// A person's own account at an MCP App that signs in each person (OAuth 2.1; our design): POST
// /apps/{appId}/oauth/connect answers the authorization URL to send the browser to, GET /apps/oauth/callback is where
// the authorization server sends it back (the state must be the caller's own pending authorization; the code is
// exchanged and the tokens kept sealed; then a redirect to where the connection began), GET and DELETE
// /apps/{appId}/oauth/connection say whether the caller is connected and disconnect (the tokens erased). Any person
// (a session, or their API key) connects only themselves.
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute, ZodBody, ZodQuery } from '#http';
import { commandContext, CurrentCaller, userActingAs, type Caller } from '#access';
import { AppOAuthConnections } from '../../mcp/oauth/app-oauth-connections.repository.js';

const ReturnTo = z
  .string()
  .max(2000)
  .regex(/^\/(?![/\\])[^\s\\]*$/, 'a path of this instance, such as /apps')
  .describe(
    'Where the callback sends the browser afterwards (default `/`), with `app_connected` or `app_connect_error`',
  );

const ConnectBody = z.strictObject({ returnTo: ReturnTo.optional() });
const ConnectDto = z.object({
  authorizationUrl: z.url().describe("The authorization server's sign-in page: send the browser there"),
});
const CallbackQuery = z.looseObject({
  state: z.string().min(1).max(500),
  code: z.string().min(1).max(4000).optional(),
  error: z.string().max(200).optional(),
});
const ConnectionDto = z.object({
  connected: z.boolean(),
  connectedAt: z.string().nullable(),
});

const notOAuth = { status: 404, description: 'No such App, or it does not sign in each person (OAuth)' };

@Controller('api/v1/core/apps')
export class ConnectAppAccountController {
  constructor(private readonly connections: AppOAuthConnections) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'Start connecting your account to an MCP App (OAuth 2.1)',
    description:
      "The server's protected-resource and authorization-server metadata are discovered, the platform's client is " +
      'the one an admin gave or registers itself, and the authorization URL carries a PKCE S256 challenge and a ' +
      'single-use state (valid 10 minutes). Send the browser to `authorizationUrl`; the callback finishes it.',
    body: ConnectBody,
    response: { status: 200, schema: ConnectDto, description: 'The authorization URL' },
    errors: [
      400,
      { status: 403, description: '`principal_not_supported`: not a person' },
      notOAuth,
      { status: 422, description: '`app_unreachable`' },
    ],
  })
  @Post(':appId/oauth/connect')
  @HttpCode(200)
  async connect(
    @Param('appId') appId: string,
    @Body(new ZodBody(ConnectBody)) body: z.output<typeof ConnectBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const userId = userActingAs(caller);
    const authorizationUrl = await this.connections.start(
      appId,
      userId,
      body.returnTo ?? '/',
      commandContext(caller),
    );
    return { authorizationUrl };
  }

  @ApiRoute({
    tag: 'Apps',
    summary: "An MCP App's OAuth callback (its authorization server redirects here)",
    description:
      "The redirect URI of every MCP App's OAuth client: `{PUBLIC_URL}/api/v1/core/apps/oauth/callback` (register " +
      'it with a pre-registered client). The state must be a pending authorization of the caller (the person who ' +
      'started it, signed in); the code is exchanged for tokens, kept sealed. Redirects to `returnTo` with ' +
      '`app_connected=<appId>`, or `app_connect_error=<reason>` when the authorization was refused or failed.',
    query: CallbackQuery,
    response: { status: 303, description: 'Connected (or refused): redirect to `returnTo`' },
    errors: [
      {
        status: 400,
        description: '`invalid_state` (unknown, used, another person’s), `authorization_expired`',
      },
      { status: 403, description: '`principal_not_supported`' },
      notOAuth,
    ],
  })
  @Get('oauth/callback')
  @HttpCode(303)
  async callback(
    @Query(new ZodQuery(CallbackQuery)) query: z.output<typeof CallbackQuery>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const userId = userActingAs(caller);
    const { appId, returnTo, error } = await this.connections.complete(query, userId, commandContext(caller));
    const target = new URL(returnTo, 'http://instance');
    target.searchParams.set(error ? 'app_connect_error' : 'app_connected', error ?? appId);
    if (error) target.searchParams.set('app', appId);
    reply.header('location', `${target.pathname}${target.search}`);
  }

  @ApiRoute({
    tag: 'Apps',
    summary: 'Whether your account is connected to an MCP App (OAuth)',
    response: { status: 200, schema: ConnectionDto, description: 'Your connection' },
    errors: [{ status: 403, description: '`principal_not_supported`' }, notOAuth],
  })
  @Get(':appId/oauth/connection')
  connection(@Param('appId') appId: string, @CurrentCaller() caller: Caller) {
    return this.connections.status(appId, userActingAs(caller));
  }

  @ApiRoute({
    tag: 'Apps',
    summary: 'Disconnect your account from an MCP App (OAuth)',
    description:
      'Your tokens are erased (their data key destroyed); the App’s tools answer that you need to connect.',
    response: { status: 204, description: 'Disconnected (or there was nothing to disconnect)' },
    errors: [{ status: 403, description: '`principal_not_supported`' }, notOAuth],
  })
  @Delete(':appId/oauth/connection')
  @HttpCode(204)
  async disconnect(@Param('appId') appId: string, @CurrentCaller() caller: Caller) {
    await this.connections.disconnect(appId, userActingAs(caller), commandContext(caller));
  }
}
