// The mail the platform sends people, in their language (`de` | `en`): invitations, password reset links and sign-in
// notices (a provider linked to the account). The API's own answers stay in English; these are the texts people read.
import type { UserLanguage } from '../user.events.js';
import type { MailMessage } from './mail.port.js';

type Template =
  | { readonly kind: 'invitation'; readonly link: string; readonly expiresAt: string }
  | { readonly kind: 'password-reset'; readonly link: string; readonly expiresAt: string }
  | { readonly kind: 'sign-in-notice'; readonly provider: string; readonly at: string };

const day = (iso: string, language: UserLanguage) =>
  new Date(iso).toLocaleString(language === 'de' ? 'de-DE' : 'en-GB', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }) + ' UTC';

const TEXTS: Record<
  UserLanguage,
  { [K in Template['kind']]: (t: Extract<Template, { kind: K }>) => { subject: string; text: string } }
> = {
  en: {
    invitation: ({ link, expiresAt }) => ({
      subject: 'You are invited to the Agent Platform',
      text: `You have been invited to the Agent Platform. Accept before ${day(expiresAt, 'en')}: ${link}`,
    }),
    'password-reset': ({ link, expiresAt }) => ({
      subject: 'Set your Agent Platform password',
      text: `Set your password before ${day(expiresAt, 'en')}: ${link}`,
    }),
    'sign-in-notice': ({ provider, at }) => ({
      subject: 'A new way to sign in to the Agent Platform',
      text:
        `${provider} was linked to your Agent Platform account on ${day(at, 'en')}; it now signs you in. ` +
        'If this was not you, unlink it in your settings and tell your administrator.',
    }),
  },
  de: {
    invitation: ({ link, expiresAt }) => ({
      subject: 'Einladung zur Agent Platform',
      text: `Sie wurden zur Agent Platform eingeladen. Nehmen Sie die Einladung bis ${day(expiresAt, 'de')} an: ${link}`,
    }),
    'password-reset': ({ link, expiresAt }) => ({
      subject: 'Legen Sie Ihr Passwort für die Agent Platform fest',
      text: `Legen Sie Ihr Passwort bis ${day(expiresAt, 'de')} fest: ${link}`,
    }),
    'sign-in-notice': ({ provider, at }) => ({
      subject: 'Neue Anmeldemöglichkeit für die Agent Platform',
      text:
        `${provider} wurde am ${day(at, 'de')} mit Ihrem Konto der Agent Platform verknüpft und meldet Sie ` +
        'jetzt an. Falls Sie das nicht waren, heben Sie die Verknüpfung in Ihren Einstellungen auf und ' +
        'informieren Sie Ihre Administration.',
    }),
  },
};

/** The message of a template, in the person's language. */
export function mailOf(template: Template, to: string, language: UserLanguage): MailMessage {
  const texts = TEXTS[language] as Record<
    Template['kind'],
    (t: Template) => { subject: string; text: string }
  >;
  return { kind: template.kind, to, ...texts[template.kind](template) };
}
