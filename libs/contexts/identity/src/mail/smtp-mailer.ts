// The SMTP adapter of the mail port (nodemailer), chosen by MAIL_URL=smtp://user:pass@host:port (smtps:// for TLS
// from the first byte; smtp:// upgrades with STARTTLS when the server offers it). One log line per message, naming
// its kind, recipient and id — never its body (a single-use link), nor the URL (its password). A refused or unreachable
// server is a 502 `mail_not_sent` whose message names no credential.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
// nodemailer is loaded on the first mail (about 24 MB and 50 ms that an instance without MAIL_URL never pays).
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig, PlatformError } from '#kernel';
import { Mailer, type MailMessage, type SentMail } from './mail.port.js';

@Injectable()
export class SmtpMailer extends Mailer implements OnModuleDestroy {
  private transport: Transporter | undefined;

  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  async send(message: MailMessage): Promise<SentMail> {
    const id = `mail_${randomUUID()}`;
    if (!this.config.mail.url) throw new Error('SmtpMailer needs MAIL_URL');
    this.transport ??= (await import('nodemailer')).createTransport(this.config.mail.url, {
      from: this.config.mail.from,
    });
    try {
      await this.transport.sendMail({
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId: `<${id}@agent-platform>`,
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const responseCode = (error as { responseCode?: unknown }).responseCode;
      this.logger.warn(
        { mail: { id, kind: message.kind, to: message.to }, code, responseCode },
        'mail not sent (SMTP)',
      );
      throw new PlatformError(
        'upstream_failed',
        'mail_not_sent',
        `the mail server did not take the message (${typeof code === 'string' ? code : 'SMTP error'}${
          typeof responseCode === 'number' ? ` ${responseCode}` : ''
        })`,
      );
    }
    this.logger.info({ mail: { id, kind: message.kind, to: message.to } }, 'mail sent (SMTP)');
    return { ...message, id, sentAt: new Date().toISOString() };
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
