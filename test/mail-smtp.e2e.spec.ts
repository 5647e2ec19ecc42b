// Mail by SMTP (issue 21 §1): with MAIL_URL=smtp://… the api sends invitations through nodemailer to a real SMTP
// listener (smtp-server, in this process: a fake at the network edge), with authentication, in the invitee's
// language; a server refusing the login makes the invitation answer a clear 502 `mail_not_sent` naming no password;
// no log line holds the mail's body (its single-use link) or the SMTP password.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

const PASSWORD = 'smtp-password-canary-51c9';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

describe('mail by SMTP (e2e)', () => {
  let smtp: SMTPServer;
  let port: number;
  const received: Received[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: false,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, callback) =>
        auth.username === 'mailer' && auth.password === PASSWORD
          ? callback(null, { user: 'mailer' })
          : callback(new Error('Invalid username or password')),
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  const start = (password: string): Promise<TestApi> =>
    startTestApi({
      MAIL_URL: `smtp://mailer:${password}@127.0.0.1:${port}`,
      MAIL_FROM: 'Agent Platform <platform@example.com>',
    });

  it('sends an invitation through the SMTP server, in the language asked for', async () => {
    const api = await start(PASSWORD);
    try {
      const reply = await client(api.url).post<{ link: string }>(`${CORE}/invitations`, {
        email: 'cleo@example.com',
        language: 'de',
      });
      expect(reply.status).toBe(201);
      const mail = received.find((m) => m.to.includes('cleo@example.com'))!;
      expect(mail.from).toBe('platform@example.com');
      expect(mail.raw).toContain('Subject: Einladung zur Agent Platform');
      const body = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      expect(body).toContain(reply.body.link);
      // The embedded outbox is not used.
      expect((await client(api.url).get<{ data: unknown[] }>(`${CORE}/mail-outbox`)).body.data).toEqual([]);
      expect(api.logs()).toContain('mail sent (SMTP)');
      expect(api.logs()).not.toContain(reply.body.link.split('#token=')[1]);
      expect(api.logs()).not.toContain(PASSWORD);
    } finally {
      await api.close();
    }
  });

  it('answers 502 mail_not_sent, naming no password, when the server refuses the login', async () => {
    const wrong = 'wrong-smtp-password-canary-77aa';
    const api = await start(wrong);
    try {
      const reply = await client(api.url).post<{ error: { code: string; message: string } }>(
        `${CORE}/invitations`,
        { email: 'dora@example.com' },
      );
      expect(reply.status).toBe(502);
      expect(reply.body.error.code).toBe('mail_not_sent');
      expect(JSON.stringify(reply.body)).not.toContain(wrong);
      expect(api.logs()).not.toContain(wrong);
      expect(received.some((m) => m.to.includes('dora@example.com'))).toBe(false);
    } finally {
      await api.close();
    }
  });
});
