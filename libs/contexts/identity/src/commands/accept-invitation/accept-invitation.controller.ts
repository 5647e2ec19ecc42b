// POST /invitations/accept (public): accept an invitation with a name, a password and a language.
import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { setSessionCookie } from '../../sessions/session-cookie.js';
import type { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { Public, publicContext, sourceOf } from '#access';
import { INVITATIONS_READ_MODEL } from '../../invitations.read-model.js';
import { UserDto } from '../../queries/list-users/user.dto.js';
import { GetUserById } from '../../queries/get-current-user/get-current-user.query.js';
import type { UserLanguage } from '../../user.events.js';
import { SESSIONS_READ_MODEL, USERS_READ_MODEL } from '../../users.read-model.js';
import { AcceptInvitation } from './accept-invitation.command.js';
import { AcceptInvitationBody } from './accept-invitation.schema.js';

/** The first of `de` / `en` in an Accept-Language header (by quality), `en` otherwise. */
export const languageOf = (header: string | undefined): UserLanguage => {
  const ranked = (header ?? '')
    .slice(0, 512)
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? 1,
      );
      return { language: tag.split('-')[0], q: Number.isFinite(q) ? q : 0 };
    })
    .filter((entry) => entry.language === 'de' || entry.language === 'en')
    .sort((a, b) => b.q - a.q);
  return (ranked[0]?.language as UserLanguage | undefined) ?? 'en';
};

@Controller('api/v1/core')
export class AcceptInvitationController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @Public()
  @ApiRoute({
    public: true,
    tag: 'Users',
    summary: 'Accept an invitation',
    description:
      "Public: the invitation link's token is the credential. Sets the person's name, password (12 to 256 " +
      'characters, stored as an argon2id hash) and language (default from Accept-Language). ' +
      'Expired, reused, revoked links and an email already taken are refused and change nothing. Signs the ' +
      'person in (the session cookie, as POST /auth/sign-in).',
    body: AcceptInvitationBody,
    response: { status: 201, schema: UserDto, description: 'The new user' },
    errors: [400, 409],
  })
  @Post('invitations/accept')
  async accept(
    @Body(new ZodBody(AcceptInvitationBody)) body: z.output<typeof AcceptInvitationBody>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const language = body.language ?? languageOf(request.headers['accept-language']);
    const accepted = await this.sender.send(
      new AcceptInvitation({ ...body, language }, sourceOf(request), publicContext('accept-invitation')),
      [USERS_READ_MODEL, INVITATIONS_READ_MODEL, SESSIONS_READ_MODEL],
    );
    setSessionCookie(
      reply,
      accepted.secret,
      this.config.people.sessionAbsoluteMs,
      this.config.people.publicUrl.startsWith('https:'),
    );
    return this.queries.execute(new GetUserById(accepted.id));
  }
}
