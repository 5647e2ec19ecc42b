// POST /users/{userId}/password-reset (admins): a single-use link; POST /auth/password-reset (public): use it.
import { Body, Controller, HttpCode, Param, Post, Req, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  principalOf,
  changeSourceOf,
  commandContext,
  CurrentCaller,
  Public,
  publicContext,
  sourceOf,
  type Caller,
} from '#access';
import { ApiRoute, ZodBody } from '#http';
import { ReadYourWritesBus } from '#eventsourcing';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../password.js';
import { USERS_READ_MODEL } from '../../users.read-model.js';
import { IssuePasswordReset, ResetPassword } from './reset-password.command.js';
import { IdempotencyInterceptor } from '../../http/idempotency.interceptor.js';

const ResetPasswordBody = z.strictObject({
  token: z.string().min(1).max(200).describe('The token of the password reset link'),
  password: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH),
});

const IssuedResetDto = z.object({
  link: z.string().describe('The single-use link, in this response (and the mail outbox) only'),
  expiresAt: z.string(),
});

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class ResetPasswordController {
  constructor(private readonly sender: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'Issue a password reset link for a user (admin)',
    idempotent: true,
    description:
      'Sends a single-use link through the mail port (embedded: GET /mail-outbox) and answers it once; it expires ' +
      'after PASSWORD_RESET_TTL_HOURS, and a newer link replaces it.',
    response: { status: 201, schema: IssuedResetDto, description: 'The link' },
    errors: [403, 404],
  })
  @Post('users/:userId/password-reset')
  async issue(@Param('userId') userId: string, @CurrentCaller() caller: Caller) {
    const issued = await this.sender.send(
      new IssuePasswordReset(userId, changeSourceOf(caller), commandContext(caller), principalOf(caller)),
      [USERS_READ_MODEL],
    );
    return { link: issued.link, expiresAt: issued.expiresAt };
  }

  @Public()
  @ApiRoute({
    public: true,
    tag: 'Sign-in',
    summary: 'Set a new password with a reset link',
    description: 'Public: the link is the credential. A used, replaced, expired or forged link is refused.',
    body: ResetPasswordBody,
    response: { status: 204, description: 'The password is set' },
    errors: [400, 403, 409],
  })
  @HttpCode(204)
  @Post('auth/password-reset')
  async reset(
    @Body(new ZodBody(ResetPasswordBody)) body: z.output<typeof ResetPasswordBody>,
    @Req() request: FastifyRequest,
  ) {
    await this.sender.send(new ResetPassword(body, sourceOf(request), publicContext('password-reset')), [
      USERS_READ_MODEL,
    ]);
  }
}
