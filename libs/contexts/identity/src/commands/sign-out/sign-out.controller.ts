// POST /auth/sign-out and /auth/sign-out-everywhere: end this session, or every session of the user.
import { Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { principalOf, changeSourceOf, commandContext, CurrentCaller, type Caller } from '#access';
import { ApiRoute } from '#http';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { ReadYourWritesBus } from '#eventsourcing';
import { clearSessionCookie } from '../../sessions/session-cookie.js';
import { SESSIONS_READ_MODEL, USERS_READ_MODEL } from '../../users.read-model.js';
import { SignOut } from './sign-out.command.js';

@Controller('api/v1/core')
export class SignOutController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @ApiRoute({
    tag: 'Sign-in',
    summary: 'Sign out (this session)',
    description: 'Revokes the session of the cookie and clears the cookie; with an API key, nothing to do.',
    response: { status: 204, description: 'Signed out' },
    errors: [401, 403],
  })
  @HttpCode(204)
  @Post('auth/sign-out')
  async signOut(@CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sender.send(
      new SignOut(
        false,
        caller.session?.id ?? null,
        changeSourceOf(caller),
        commandContext(caller),
        principalOf(caller),
      ),
      [SESSIONS_READ_MODEL],
    );
    clearSessionCookie(reply, this.config.people.publicUrl.startsWith('https:'));
  }

  @ApiRoute({
    tag: 'Sign-in',
    summary: 'Sign out everywhere',
    description: "Ends every session of the caller's user (API keys stay).",
    response: { status: 204, description: 'Signed out everywhere' },
    errors: [401, 403],
  })
  @HttpCode(204)
  @Post('auth/sign-out-everywhere')
  async signOutEverywhere(@CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sender.send(
      new SignOut(
        true,
        caller.session?.id ?? null,
        changeSourceOf(caller),
        commandContext(caller),
        principalOf(caller),
      ),
      [USERS_READ_MODEL],
    );
    clearSessionCookie(reply, this.config.people.publicUrl.startsWith('https:'));
  }
}
