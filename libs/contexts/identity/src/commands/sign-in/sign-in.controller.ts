// POST /auth/sign-in (public): email and password → a session cookie (HttpOnly, SameSite=Lax, Secure over https).
import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { Inject } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { ReadYourWritesBus } from '#eventsourcing';
import { Public, publicContext, sourceOf } from '#access';
import { GetUserById } from '../../queries/get-current-user/get-current-user.query.js';
import { UserDto } from '../../queries/list-users/user.dto.js';
import { sessionIdOf } from '../../session.events.js';
import { sessionSecretOf, setSessionCookie } from '../../sessions/session-cookie.js';
import { SESSIONS_READ_MODEL } from '../../users.read-model.js';
import { SignIn } from './sign-in.command.js';
import { SignInBody } from './sign-in.schema.js';

@Controller('api/v1/core')
export class SignInController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @Public()
  @ApiRoute({
    public: true,
    tag: 'Sign-in',
    summary: 'Sign in with email and password',
    description:
      'Answers the user and sets the session cookie `ap_session` (HttpOnly, SameSite=Lax, Secure when PUBLIC_URL ' +
      'is https); a session the request came with is revoked. An unknown email and a wrong password get the same ' +
      '401 `invalid_credentials`; failures per account and per source address past SIGN_IN_* are 429 ' +
      '`sign_in_rate_limited` with Retry-After.',
    body: SignInBody,
    response: { status: 200, schema: UserDto, description: 'The signed-in user' },
    errors: [400, 401, 429],
  })
  @HttpCode(200)
  @Post('auth/sign-in')
  async signIn(
    @Body(new ZodBody(SignInBody)) body: z.output<typeof SignInBody>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const previous = sessionSecretOf(request);
    const signedIn = await this.sender.send(
      new SignIn(body, sourceOf(request), previous ? sessionIdOf(previous) : null, publicContext('sign-in')),
      [SESSIONS_READ_MODEL],
    );
    setSessionCookie(
      reply,
      signedIn.secret,
      this.config.people.sessionAbsoluteMs,
      this.config.people.publicUrl.startsWith('https:'),
    );
    return this.queries.execute(new GetUserById(signedIn.id));
  }
}
