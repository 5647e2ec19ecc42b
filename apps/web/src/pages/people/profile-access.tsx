// The profile's ways in: sign-ins of other providers linked to the account (link through the provider, unlink), and
// the open sessions (each by its handle, never its secret) with sign-out of one or of all.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { dateTime } from '../../dates';
import { t } from '../../i18n';
import type { List } from '../../state';
import { useProviders } from '../sign-in';
import { OutcomeLine, useOutcome } from './outcome';

interface Identity {
  readonly providerId: string;
  readonly name: string;
  readonly email: string | null;
  readonly linkedAt: string;
}

interface OpenSession {
  readonly id: string;
  readonly method: string;
  readonly device: string | null;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly current: boolean;
}

const BROWSERS: readonly [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/Firefox\//, 'Firefox'],
  [/HeadlessChrome\//, 'Headless Chrome'],
  [/Chrome\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: readonly [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X/, 'macOS'],
  [/Linux/, 'Linux'],
];

/** "Firefox · Windows" from a User-Agent (the whole string stays in the cell's title); the string when neither is known. */
function deviceOf(userAgent: string): string {
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  return browser || system ? [browser, system].filter(Boolean).join(' · ') : userAgent;
}

export function LinkedIdentities() {
  const { providers } = useProviders();
  const [identities, setIdentities] = useState<Identity[]>([]);
  const { outcome, run, read } = useOutcome();
  const load = () =>
    void read(api<List<Identity>>('GET', 'me/identities')).then((l) => l && setIdentities(l.data));
  useEffect(load, []);
  const link = async (providerId: string) => {
    const started = await run(
      api<{ authorizationUrl: string }>('POST', `auth/oidc/${encodeURIComponent(providerId)}/link`, {
        returnTo: '/profile',
      }),
    );
    if (started) location.assign(started.authorizationUrl);
  };
  const unlink = async (providerId: string) => {
    await run(api('DELETE', `me/identities/${encodeURIComponent(providerId)}`));
    load();
  };
  const linked = new Set(identities.map((identity) => identity.providerId));
  return (
    <>
      {identities.length === 0 ? (
        <p class="note">{t('noIdentities')}</p>
      ) : (
        <ul class="rows">
          {identities.map((identity) => (
            <li key={identity.providerId}>
              <span>
                {identity.name}
                {identity.email ? ` (${identity.email})` : ''}
              </span>
              <button type="button" onClick={() => void unlink(identity.providerId)}>
                {t('unlinkNamed', { name: identity.name })}
              </button>
            </li>
          ))}
        </ul>
      )}
      {providers
        .filter((provider) => !linked.has(provider.id))
        .map((provider) => (
          <button key={provider.id} type="button" onClick={() => void link(provider.id)}>
            {t('linkProvider', { name: provider.name })}
          </button>
        ))}
      <OutcomeLine outcome={outcome} />
    </>
  );
}

export function OpenSessions({ onSignedOut }: { onSignedOut: () => void }) {
  const [sessions, setSessions] = useState<OpenSession[]>([]);
  const { outcome, run, read } = useOutcome();
  const load = () =>
    void read(api<List<OpenSession>>('GET', 'me/sessions')).then((l) => l && setSessions(l.data));
  useEffect(load, []);
  const end = async (session: OpenSession) => {
    const done = await run(
      api('DELETE', `me/sessions/${session.id}`).then(() => true),
      'sessionEnded',
    );
    if (done && session.current) onSignedOut();
    else load();
  };
  const everywhere = async () => {
    if (await run(api('POST', 'auth/sign-out-everywhere').then(() => true))) onSignedOut();
  };
  return (
    <>
      <table class="sessions">
        <thead>
          <tr>
            <th scope="col">{t('device')}</th>
            <th scope="col">{t('created')}</th>
            <th scope="col">{t('lastUsed')}</th>
            <th scope="col">
              <span class="visually-hidden">{t('actionsLabel')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => {
            const device = session.device ? deviceOf(session.device) : t('unknownDevice');
            return (
              <tr key={session.id}>
                <td class="device" title={session.device ?? undefined}>
                  {device}
                  {session.current && <strong> · {t('thisSession')}</strong>}
                </td>
                <td data-label={t('created')}>{dateTime(session.createdAt)}</td>
                <td data-label={t('lastUsed')}>{dateTime(session.lastSeenAt)}</td>
                <td>
                  <button
                    type="button"
                    aria-label={t('signOutSessionOf', { device, created: dateTime(session.createdAt) })}
                    onClick={() => void end(session)}
                  >
                    {t('signOut')}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button type="button" onClick={() => void everywhere()}>
        {t('signOutEverywhere')}
      </button>
      <OutcomeLine outcome={outcome} />
    </>
  );
}
