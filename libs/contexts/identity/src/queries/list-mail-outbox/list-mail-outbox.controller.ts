// GET /mail-outbox (admins): what the embedded mail adapter sent, newest first (links included: admins copy them).
import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { EmbeddedOutbox, Mailer } from '../../mail/mail.port.js';

const MailDto = z.object({
  id: z.string(),
  kind: z.enum(['invitation', 'password-reset', 'sign-in-notice']),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  sentAt: z.string(),
});

@Controller('api/v1/core')
export class ListMailOutboxController {
  constructor(private readonly mailer: Mailer) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'The embedded mail outbox (admin)',
    description: 'Messages the embedded mail adapter holds (this process, newest 500), newest first.',
    response: { status: 200, schema: z.object({ data: z.array(MailDto) }), description: 'The outbox' },
    errors: [403],
  })
  @Get('mail-outbox')
  list() {
    return { data: this.mailer instanceof EmbeddedOutbox ? this.mailer.list() : [] };
  }
}
