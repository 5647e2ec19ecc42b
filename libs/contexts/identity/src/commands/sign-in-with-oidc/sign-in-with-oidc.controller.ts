// Single sign-on (public): GET /auth/oidc/{providerId}/start sends the browser to the provider; the provider sends it
// back to GET /auth/oidc/{providerId}/callback, which signs the person in (the session cookie, as POST /auth/sign-in)
// or finishes linking the identity to the user who started it from their session (POST /auth/oidc/{id}/link), and
// redirects to `returnTo`. A refusal answers the error envelope (4xx) and is recorded as a SignInFailed event.
import { Controller, Get, HttpCode, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { ReadYourWritesBus } from '#eventsourcing';
import { Public, publicContext, sourceOf } from '#access';
import { clearOidcCookie, OidcSignIn, OidcSignInError } from '../../oidc/oidc-sign-in.js';
import { sessionIdOf } from '../../session.events.js';
import { sessionSecretOf, setSessionCookie } from '../../sessions/session-cookie.js';
import { IDENTITIES_READ_MODEL, SESSIONS_READ_MODEL } from '../../users.read-model.js';
import { LinkIdentity } from '../link-identity/link-identity.command.js';
import { RecordOidcFailure, SignInWithOidc } from './sign-in-with-oidc.command.js';
import { OidcCallbackQuery, OidcStartQuery } from './sign-in-with-oidc.schema.js';

@Controller('api/v1/core')
export class SignInWithOidcController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly oidc: OidcSignIn,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @Public()
  @ApiRoute({
    public: true,
    tag: 'Sign-in',
    summary: 'Start single sign-on with a provider',
    description:
      'Redirects (303) to the provider of AUTH_PROVIDERS_FILE with an authorization code request (PKCE S256, ' +
      '`state`, `nonce`), and sets the short-lived cookie `ap_oidc` that binds the callback to this browser (single ' +
      'use, ten minutes). `returnTo`: the path to go back to after signing in (default `/`).',
    query: OidcStartQuery,
    response: { status: 303, description: "Redirect to the provider's sign-in page" },
    errors: [
      400,
      { status: 404, description: 'No such provider (auth_provider_not_found)' },
      { status: 502, description: 'The provider could not be reached (auth_provider_unavailable)' },
    ],
  })
  @HttpCode(303)
  @Get('auth/oidc/:providerId/start')
  async start(
    @Param('providerId') providerId: string,
    @Query(new ZodQuery(OidcStartQuery)) query: z.output<typeof OidcStartQuery>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const url = await this.oidc.start(providerId, { kind: 'signIn' }, query.returnTo ?? '/', request, reply);
    reply.header('location', url.href);
  }

  @Public()
  @ApiRoute({
    public: true,
    tag: 'Sign-in',
    summary: 'Single sign-on callback (the provider redirects here)',
    description:
      "Checks the provider's answer with openid-client (state, the ID token's signature, iss, aud/azp, expiry, " +
      'nonce; `alg: none` and tokens for another client are refused), then: a sign-in sets the session cookie ' +
      '`ap_session` (as POST /auth/sign-in) and redirects to `returnTo`; a link started from a session links the ' +
      'identity to that user. `sso` providers sign in the user linked to the identity, or at a first sign-in ' +
      "accept the pending invitation of the provider's email when `email_verified` is true (or make a just-in-time " +
      'member of `allowedDomains` when the provider has `justInTime`); `social` providers sign in only a user who ' +
      'linked them. An existing user is never linked by email.',
    query: OidcCallbackQuery,
    response: { status: 303, description: 'Signed in (or linked): redirect to `returnTo`' },
    errors: [
      {
        status: 401,
        description:
          'The answer was refused (oidc_state_invalid: unknown, expired or replayed state; oidc_response_invalid: ' +
          'bad signature, another client, expired, wrong nonce, alg none) or the user is deactivated',
      },
      {
        status: 403,
        description:
          'oidc_email_unverified (an invitation needs a verified email), oidc_identity_not_linked (no user for ' +
          'this identity), identity_linked_elsewhere',
      },
      { status: 404, description: 'No such provider' },
      { status: 409, description: 'Linking: identity_linked_elsewhere, provider_already_linked' },
      { status: 502, description: 'The provider could not be reached' },
    ],
  })
  @HttpCode(303)
  @Get('auth/oidc/:providerId/callback')
  async callback(
    @Param('providerId') providerId: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const source = sourceOf(request);
    const secure = this.config.people.publicUrl.startsWith('https:');
    clearOidcCookie(reply, secure);
    const context = publicContext('oidc-sign-in');
    const finished = await this.oidc.finish(providerId, request).catch(async (error: unknown) => {
      if (error instanceof OidcSignInError)
        await this.sender.send(new RecordOidcFailure(providerId, error.reason, source, context), []);
      throw error;
    });
    const { identity, intent, returnTo } = finished;
    if (intent.kind === 'link') {
      await this.sender.send(
        new LinkIdentity(
          identity,
          source,
          { ...context, actor: { kind: 'user', id: intent.userId } },
          { kind: 'session', userId: intent.userId, isAdmin: false },
        ),
        [IDENTITIES_READ_MODEL],
      );
      reply.header('location', returnTo);
      return;
    }
    const previous = sessionSecretOf(request);
    const signedIn = await this.sender.send(
      new SignInWithOidc(identity, source, previous ? sessionIdOf(previous) : null, context),
      [SESSIONS_READ_MODEL],
    );
    setSessionCookie(reply, signedIn.secret, this.config.people.sessionAbsoluteMs, secure);
    reply.header('location', returnTo);
  }
}
