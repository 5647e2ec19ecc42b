// AUTH_PASSWORD_SIGN_IN=false (issue 21 §2): single sign-on replaces the password fields. Signing in with a password,
// accepting an invitation with one and issuing a password reset are a clear 403, and change nothing; the providers
// route tells the web app not to show the fields.
import { EVENT_STORE, type EventStore } from '#event-store';
import { client, CORE, startTestApi, type TestApi } from './support/api.js';

describe('password sign-in turned off (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ AUTH_PASSWORD_SIGN_IN: 'false' });
  });
  afterAll(() => api.close());

  it('answers 403 password_sign_in_disabled for the password fields, and says so on the providers route', async () => {
    const providers = await client(api.url, null).get(`${CORE}/auth/providers`);
    expect(providers.body).toEqual({ data: [], passwordSignIn: false });

    const invitation = await client(api.url).post<{ id: string; link: string }>(`${CORE}/invitations`, {
      email: 'sso-only@example.com',
    });
    expect(invitation.status).toBe(201);
    const head = await api.app.get<EventStore>(EVENT_STORE).headPosition();
    const token = decodeURIComponent(invitation.body.link.split('#token=')[1]!);
    const accept = await client(api.url, null).post<{ error: { code: string } }>(
      `${CORE}/invitations/accept`,
      {
        token,
        name: 'Sso Only',
        password: 'a long passphrase 123',
      },
    );
    expect([accept.status, accept.body.error.code]).toEqual([403, 'password_sign_in_disabled']);
    const signIn = await client(api.url, null).post<{ error: { code: string } }>(`${CORE}/auth/sign-in`, {
      email: 'admin@localhost',
      password: 'a long passphrase 123',
    });
    expect([signIn.status, signIn.body.error.code]).toEqual([403, 'password_sign_in_disabled']);
    const admin = await client(api.url).get<{ id: string }>(`${CORE}/users/me`);
    const reset = await client(api.url).post<{ error: { code: string } }>(
      `${CORE}/users/${admin.body.id}/password-reset`,
    );
    expect([reset.status, reset.body.error.code]).toEqual([403, 'password_sign_in_disabled']);
    // Nothing was appended by the refused requests (no user, no failed sign-in, no reset link).
    expect(await api.app.get<EventStore>(EVENT_STORE).headPosition()).toBe(head);
    const invitations = await client(api.url).get<{ data: { id: string; status: string }[] }>(
      `${CORE}/invitations`,
    );
    expect(invitations.body.data.find((i) => i.id === invitation.body.id)?.status).toBe('pending');
  });
});
