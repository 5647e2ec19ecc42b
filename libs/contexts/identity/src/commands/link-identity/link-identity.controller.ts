// Linking providers from one's session: POST /auth/oidc/{providerId}/link starts the provider's sign-in for linking
// (the callback links the identity to this user), DELETE /me/identities/{providerId} unlinks it.
import { Body, Controller, Delete, HttpCode, Param, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { principalOf, commandContext, CurrentCaller, type Caller } from '#access';
import { OidcSignIn } from '../../oidc/oidc-sign-in.js';
import { IDENTITIES_READ_MODEL } from '../../users.read-model.js';
import { AuthorizationUrlDto, LinkIdentityBody } from '../sign-in-with-oidc/sign-in-with-oidc.schema.js';
import { UnlinkIdentity } from './link-identity.command.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class LinkIdentityController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly oidc: OidcSignIn,
  ) {}

  @ApiRoute({
    tag: 'Sign-in',
    summary: "Link a provider to one's user (from a signed-in session)",
    idempotent: true,
    description:
      "Answers the provider's sign-in page to send the browser to (and sets the `ap_oidc` cookie); when the " +
      'person signs in there, the callback links that identity to this user, after which the provider signs ' +
      'this user in. The only way to link a `social` provider. An identity linked to another user is refused ' +
      '(409 identity_linked_elsewhere). A session only: an API key gets 403.',
    body: LinkIdentityBody,
    response: { status: 200, schema: AuthorizationUrlDto, description: "The provider's sign-in page" },
    errors: [400, 403, 404, 502],
  })
  @HttpCode(200)
  @Post('auth/oidc/:providerId/link')
  async link(
    @Param('providerId') providerId: string,
    @Body(new ZodBody(LinkIdentityBody)) body: z.output<typeof LinkIdentityBody>,
    @CurrentCaller() caller: Caller,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const url = await this.oidc.start(
      providerId,
      { kind: 'link', userId: caller.userId },
      body.returnTo ?? '/',
      request,
      reply,
    );
    return { authorizationUrl: url.href };
  }

  @ApiRoute({
    tag: 'Sign-in',
    summary: "Unlink a provider from one's user (from a signed-in session)",
    response: { status: 204, description: 'Unlinked' },
    errors: [403, { status: 404, description: 'No identity of this provider is linked to the user' }],
  })
  @HttpCode(204)
  @Delete('me/identities/:providerId')
  async unlink(@Param('providerId') providerId: string, @CurrentCaller() caller: Caller) {
    await this.sender.send(
      new UnlinkIdentity(
        providerId,
        caller.source ?? { address: null, userAgent: null },
        commandContext(caller),
        principalOf(caller),
      ),
      [IDENTITIES_READ_MODEL],
    );
  }
}
