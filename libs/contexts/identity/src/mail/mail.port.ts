// The mail port: invitations (later password resets and sign-in notices) leave through it. The embedded adapter keeps
// an outbox in memory (the newest 500; admins read it at GET /mail-outbox and copy the link) and logs one line per
// message naming its kind, recipient and id — never its body, which carries a single-use link.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '#kernel';

export interface MailMessage {
  readonly kind: 'invitation' | 'password-reset' | 'sign-in-notice';
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface SentMail extends MailMessage {
  readonly id: string;
  readonly sentAt: string;
}

export abstract class Mailer {
  abstract send(message: MailMessage): Promise<SentMail>;
}

const OUTBOX_LIMIT = 500;

@Injectable()
export class EmbeddedOutbox extends Mailer {
  private readonly messages: SentMail[] = [];

  constructor(@Inject(LOGGER) private readonly logger: Logger) {
    super();
  }

  send(message: MailMessage): Promise<SentMail> {
    const sent = { ...message, id: `mail_${randomUUID()}`, sentAt: new Date().toISOString() };
    this.messages.push(sent);
    if (this.messages.length > OUTBOX_LIMIT) this.messages.shift();
    this.logger.info(
      { mail: { id: sent.id, kind: sent.kind, to: sent.to } },
      'mail queued in the embedded outbox (GET /api/v1/core/mail-outbox)',
    );
    return Promise.resolve(sent);
  }

  /** Newest first. */
  list(): readonly SentMail[] {
    return this.messages.toReversed();
  }
}
