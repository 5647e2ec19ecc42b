import { mailOf } from './mail-templates.js';

describe('mail templates', () => {
  const link = 'http://localhost:3000/invitations/accept#token=inv_x.y';
  const expiresAt = '2030-01-08T09:30:00.000Z';

  it('writes each mail in the person’s language, with the link and the date', () => {
    const en = mailOf({ kind: 'invitation', link, expiresAt }, 'bo@example.com', 'en');
    const de = mailOf({ kind: 'invitation', link, expiresAt }, 'bo@example.com', 'de');
    expect(en).toMatchObject({
      kind: 'invitation',
      to: 'bo@example.com',
      subject: 'You are invited to the Agent Platform',
    });
    expect(de.subject).toBe('Einladung zur Agent Platform');
    for (const mail of [en, de]) expect(mail.text).toContain(link);
    expect(en.text).toContain('8 January 2030');
    expect(de.text).toContain('8. Januar 2030');

    expect(mailOf({ kind: 'password-reset', link, expiresAt }, 'a@x', 'de').subject).toBe(
      'Legen Sie Ihr Passwort für die Agent Platform fest',
    );
    const notice = mailOf({ kind: 'sign-in-notice', provider: 'Corp SSO', at: expiresAt }, 'a@x', 'de');
    expect(notice.text).toMatch(/^Corp SSO wurde am 8\. Januar 2030/);
    expect(mailOf({ kind: 'sign-in-notice', provider: 'Corp SSO', at: expiresAt }, 'a@x', 'en').subject).toBe(
      'A new way to sign in to the Agent Platform',
    );
  });
});
