// Single sign-on (issue 21 §2): a real OpenID provider (oidc-provider, the certified implementation) runs in this
// process on 127.0.0.1 with two clients, configured in the api through AUTH_PROVIDERS_FILE as an `sso` and a `social`
// provider. The browser is played by fetch, following redirects by hand and carrying each origin's cookies; the
// provider's login is completed programmatically (its interaction URL finishes with the account the test names).
// Covered: invite → SSO sign-in with the invited, verified email → session cookie → users/me and a conversation turn;
// linking the social provider from the session, then signing in with it; refusals for an unverified email, a token
// for another client, a tampered signature, `alg: none`, a replayed state, an identity linked elsewhere and a social
// sign-in for an unknown person. The provider's token answers are altered (for the refusals) by a middleware in the
// provider: a fake at the network edge, never in the api. No token, code or client secret reaches an event or a log.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { EVENT_STORE, type EventStore } from '#event-store';
import { waitUntil } from '#testing/fixtures';
import { client, CORE, startTestApi, tempDataDir, type TestApi } from './support/api.js';

const SSO_SECRET = 'sso-client-secret-canary-4b1f9e2d7c';
const SOCIAL_SECRET = 'social-client-secret-canary-8e3a61d0';

interface Account {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

/** Path-aware cookies per origin, as a browser keeps them. */
class CookieJar {
  private readonly cookies = new Map<string, { origin: string; name: string; path: string; value: string }>();

  store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const expired =
        attributes.some((a) => /^max-age=0$/i.test(a)) ||
        attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now());
      const key = `${url.origin} ${name} ${path}`;
      if (expired || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { origin: url.origin, name, path, value });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter((c) => c.origin === url.origin && url.pathname.startsWith(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** Signs out of a site: its cookies are gone (the provider then asks who signs in). */
  forget(origin: string): void {
    for (const [key, cookie] of this.cookies) if (cookie.origin === origin) this.cookies.delete(key);
  }

  value(origin: string, name: string): string | undefined {
    return [...this.cookies.values()].find((c) => c.origin === origin && c.name === name)?.value;
  }
}

interface Landing {
  status: number;
  url: URL;
  body: { error?: { code: string; message: string } } | null;
  /** The provider's callback URL the browser was sent to (to replay it). */
  callback: URL | null;
}

describe('single sign-on with a real OpenID provider (e2e)', () => {
  let api: TestApi;
  let provider: Provider;
  let providerServer: Server;
  let issuer: string;
  const admin = () => client(api.url);
  /** Who signs in at the provider next. */
  let account: Account;
  /** Alters the provider's token answer's id_token (null: leaves it). */
  let alterIdToken: ((idToken: string) => Promise<string> | string) | null = null;
  const accounts = new Map<string, Account>();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-signing-key', alg: 'RS256', use: 'sig' };

  const person = (sub: string, email: string, verified = true): Account => {
    const found = { sub, email, email_verified: verified, name: `Person ${sub}` };
    accounts.set(sub, found);
    return found;
  };

  beforeAll(async () => {
    // The provider's port first (its issuer goes into the providers file), its clients once the api's URL is known.
    let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
    providerServer = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
    const providersFile = join(tempDataDir(), 'providers.yaml');
    writeFileSync(
      providersFile,
      [
        'providers:',
        '  - id: corp',
        '    name: Corp SSO',
        '    kind: sso',
        `    issuer: ${issuer}`,
        '    clientId: platform-sso',
        '    clientSecretEnv: CORP_SSO_SECRET',
        '  - id: social',
        '    name: Social',
        '    kind: social',
        `    issuer: ${issuer}`,
        '    clientId: platform-social',
        `    clientSecret: ${SOCIAL_SECRET}`,
        '  - id: partners',
        '    kind: sso',
        `    issuer: ${issuer}`,
        '    clientId: platform-jit',
        `    clientSecret: ${SSO_SECRET}-jit`,
        '    allowedDomains: [partner.example]',
        '    justInTime: true',
      ].join('\n'),
    );
    api = await startTestApi({ AUTH_PROVIDERS_FILE: providersFile, CORP_SSO_SECRET: SSO_SECRET });
    const callback = (id: string) => `${api.url}${CORE}/auth/oidc/${id}/callback`;
    provider = new Provider(issuer, {
      clients: [
        { client_id: 'platform-sso', client_secret: SSO_SECRET, redirect_uris: [callback('corp')] },
        { client_id: 'platform-social', client_secret: SOCIAL_SECRET, redirect_uris: [callback('social')] },
        {
          client_id: 'platform-jit',
          client_secret: `${SSO_SECRET}-jit`,
          redirect_uris: [callback('partners')],
        },
      ],
      jwks: { keys: [jwk] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      cookies: { keys: ['test-cookie-key-0123456789'] },
      // Lifetimes given (the provider notices defaults otherwise): a sign-in in this test takes seconds.
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        Grant: 600,
        IdToken: 600,
        Interaction: 600,
        Session: 600,
      },
      findAccount: (_ctx, sub) => {
        const found = accounts.get(sub);
        return found ? { accountId: sub, claims: () => ({ ...found }) } : undefined;
      },
      // Consent is given: the test is about the relying party.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === '/token' && alterIdToken && body?.id_token)
        ctx.body = { ...body, id_token: await alterIdToken(body.id_token) };
    });
    const callbackHandler = provider.callback();
    handle = (req, res) => {
      if (req.url?.startsWith('/interaction/')) {
        // The login form, filled in: the account the test named signs in, every time.
        void provider
          .interactionFinished(
            req,
            res,
            { login: { accountId: account.sub } },
            { mergeWithLastSubmission: false },
          )
          .catch((error: unknown) => {
            res.statusCode = 500;
            res.end(String(error));
          });
        return;
      }
      void callbackHandler(req, res);
    };
  });

  afterAll(async () => {
    await api.close();
    providerServer.closeAllConnections();
    await new Promise((resolve) => providerServer.close(resolve));
  });

  /**
   * A browser: follows redirects by hand, with its cookies, until a page of the web app (a path of the api's origin
   * outside /api) or an answer that is not a redirect. `start` is an api path, or an absolute URL.
   */
  const browse = async (
    jar: CookieJar,
    start: string,
    init: RequestInit = {},
    stopAtCallback = false,
  ): Promise<Landing> => {
    let url = new URL(start, api.url);
    let request: RequestInit = init;
    let callback: URL | null = null;
    for (let hops = 0; hops < 20; hops++) {
      if (stopAtCallback && url.pathname.endsWith('/callback'))
        return { status: 0, url, body: null, callback: url };
      const response = await fetch(url, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), cookie: jar.header(url) },
      });
      jar.store(url, response.headers);
      const text = await response.text();
      const location = response.headers.get('location');
      if (url.pathname.endsWith('/callback')) callback = url;
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url);
        request = {};
        if (url.origin === api.url && !url.pathname.startsWith('/api/'))
          return { status: response.status, url, body: null, callback };
        continue;
      }
      let body: Landing['body'];
      try {
        body = JSON.parse(text) as Landing['body'];
      } catch {
        body = null;
      }
      return { status: response.status, url, body, callback };
    }
    throw new Error('too many redirects');
  };

  const ssoSignIn = (jar: CookieJar, providerId = 'corp', returnTo = '/chat') =>
    browse(jar, `${CORE}/auth/oidc/${providerId}/start?returnTo=${encodeURIComponent(returnTo)}`);

  const withSession = (jar: CookieJar) => {
    const cookie = `ap_session=${jar.value(api.url, 'ap_session')}`;
    return {
      get: <T>(path: string) => client(api.url, null).get<T>(path, { cookie }),
      post: <T>(path: string, body?: unknown) =>
        client(api.url, null).post<T>(path, body, { cookie, origin: api.url }),
    };
  };

  const invite = async (email: string) => {
    const reply = await admin().post<{ id: string }>(`${CORE}/invitations`, { email, role: 'member' });
    expect(reply.status).toBe(201);
    return reply.body;
  };

  /** A fresh tag for names and emails: each test makes its own people. */
  const tag = () => Math.random().toString(36).slice(2, 10);

  /** A person invited and signed in by the sso provider: their browser (with the session), account and user id. */
  const ssoUser = async (name: string) => {
    const email = `${name}-${tag()}@example.com`;
    await invite(email);
    const own = person(`${name}-${tag()}`, email);
    account = own;
    const jar = new CookieJar();
    expect((await ssoSignIn(jar)).url.pathname).toBe('/chat');
    const id = (await withSession(jar).get<{ id: string }>(`${CORE}/users/me`)).body.id;
    return { jar, account: own, email, id };
  };

  /** Links the social provider to the user of `jar`'s session, signing in there as `as`; the callback's landing. */
  const linkSocial = async (jar: CookieJar, as: Account) => {
    const started = await withSession(jar).post<{ authorizationUrl: string }>(
      `${CORE}/auth/oidc/social/link`,
      {
        returnTo: '/settings',
      },
    );
    expect(started.status).toBe(200);
    jar.store(new URL(api.url), started.headers);
    // At the provider the person signs in with the social account, not the corp one the browser is signed in with.
    jar.forget(issuer);
    account = as;
    return browse(jar, started.body.authorizationUrl);
  };

  it('lists the providers for the web app, and password sign-in as allowed', async () => {
    const reply = await client(api.url, null).get(`${CORE}/auth/providers`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      data: [
        { id: 'corp', kind: 'sso', name: 'Corp SSO' },
        { id: 'social', kind: 'social', name: 'Social' },
        { id: 'partners', kind: 'sso', name: 'partners' },
      ],
      passwordSignIn: true,
    });
    expect(JSON.stringify(reply.body)).not.toContain(SOCIAL_SECRET);
    const unknown = await client(api.url, null).get<{ error: { code: string } }>(
      `${CORE}/auth/oidc/nobody/start`,
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('auth_provider_not_found');
    const offsite = await client(api.url, null).get(`${CORE}/auth/oidc/corp/start?returnTo=//evil.example`);
    expect(offsite.status).toBe(400);

    // The OpenAPI document has every route of single sign-on; the public ones need no key.
    type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const doc = (await client(api.url, null).get<Doc>(`${CORE}/openapi.json`)).body;
    const routes: [string, string][] = [
      ['get', '/auth/providers'],
      ['get', '/auth/oidc/{providerId}/start'],
      ['get', '/auth/oidc/{providerId}/callback'],
      ['post', '/auth/oidc/{providerId}/link'],
      ['get', '/me/identities'],
      ['delete', '/me/identities/{providerId}'],
    ];
    for (const [method, path] of routes) expect(doc.paths[`${CORE}${path}`]?.[method]).toBeDefined();
    const start = doc.paths[`${CORE}/auth/oidc/{providerId}/start`]!.get!;
    expect(Object.keys(start.responses)).toEqual(expect.arrayContaining(['303', '404']));
    expect(start.responses['401']).toBeUndefined();
  });

  it('invite → SSO sign-in with the invited, verified email → session cookie → users/me and a conversation turn', async () => {
    const invitation = await invite('ada@example.com');
    account = person('ada-sub', 'Ada@Example.com');
    const jar = new CookieJar();
    const landing = await ssoSignIn(jar);
    expect(landing.url.pathname).toBe('/chat');
    expect(landing.status).toBe(303);
    const me = await withSession(jar).get<{ id: string; email: string; name: string; role: string }>(
      `${CORE}/users/me`,
    );
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'ada@example.com', name: 'Person ada-sub', role: 'member' });
    const invitations = await admin().get<{ data: { id: string; status: string }[] }>(`${CORE}/invitations`);
    expect(invitations.body.data.find((i) => i.id === invitation.id)?.status).toBe('accepted');
    const identities = await withSession(jar).get<{ data: { providerId: string; via: string }[] }>(
      `${CORE}/me/identities`,
    );
    expect(identities.body.data).toEqual([
      expect.objectContaining({ providerId: 'corp', via: 'invitation' }),
    ]);

    type Agents = { data: { id: string; isPersonal: boolean }[] };
    await waitUntil(async () =>
      (await withSession(jar).get<Agents>(`${CORE}/agents?limit=200`)).body.data.some((a) => a.isPersonal),
    );
    const personal = (await withSession(jar).get<Agents>(`${CORE}/agents?limit=200`)).body.data.find(
      (a) => a.isPersonal,
    )!;
    const turn = await withSession(jar).post<{ message: { content: string } }>(
      `${CORE}/llm/${personal.id}/conversation`,
      { message: 'hello from single sign-on' },
    );
    expect(turn.status).toBe(201);
    expect(turn.body.message.content.length).toBeGreaterThan(0);

    // Signing in again with the same identity: the same user, and the session rotates.
    const before = jar.value(api.url, 'ap_session');
    const oldCookie = `ap_session=${before}`;
    await ssoSignIn(jar);
    expect(jar.value(api.url, 'ap_session')).not.toBe(before);
    expect((await withSession(jar).get<{ id: string }>(`${CORE}/users/me`)).body.id).toBe(me.body.id);
    expect((await client(api.url, null).get(`${CORE}/users/me`, { cookie: oldCookie })).status).toBe(401);
  });

  it('refuses an invitation by an email the provider does not call verified, and an unknown person', async () => {
    const email = `unverified-${tag()}@example.com`;
    const invitation = await invite(email);
    account = person(`unverified-${tag()}`, email, false);
    const refused = await ssoSignIn(new CookieJar());
    expect(refused.status).toBe(403);
    expect(refused.body?.error?.code).toBe('oidc_email_unverified');
    const invitations = await admin().get<{ data: { id: string; status: string }[] }>(`${CORE}/invitations`);
    expect(invitations.body.data.find((i) => i.id === invitation.id)?.status).toBe('pending');

    account = person(`stranger-${tag()}`, `stranger-${tag()}@example.com`);
    const stranger = await ssoSignIn(new CookieJar());
    expect(stranger.status).toBe(403);
    expect(stranger.body?.error?.code).toBe('oidc_identity_not_linked');
  });

  it('never links an existing user by email: the SSO identity of a password user is refused', async () => {
    // A second identity at the provider with a user's email is not that user.
    const eve = await ssoUser('eve');
    account = person(`impostor-${tag()}`, eve.email);
    const refused = await ssoSignIn(new CookieJar());
    expect(refused.status).toBe(403);
    expect(refused.body?.error?.code).toBe('oidc_identity_not_linked');
  });

  it('refuses a token for another client, a tampered signature, alg none, and a replayed state', async () => {
    const email = `bea-${tag()}@example.com`;
    await invite(email);
    account = person(`bea-${tag()}`, email);
    const { SignJWT, decodeJwt, decodeProtectedHeader, importJWK } = await import('jose');
    const key = await importJWK(jwk, 'RS256');
    const attempts: [string, (idToken: string) => Promise<string> | string][] = [
      [
        'another client',
        async (idToken) =>
          new SignJWT({ ...decodeJwt(idToken), aud: 'platform-social', azp: 'platform-social' })
            .setProtectedHeader(decodeProtectedHeader(idToken) as { alg: string })
            .sign(key),
      ],
      [
        'tampered signature',
        (idToken) => {
          const [header, , signature] = idToken.split('.');
          const payload = { ...decodeJwt(idToken), email: 'admin@localhost' };
          return `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
        },
      ],
      [
        'alg none',
        (idToken) =>
          `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${idToken.split('.')[1]}.`,
      ],
    ];
    for (const [label, alter] of attempts) {
      alterIdToken = alter;
      const refused = await ssoSignIn(new CookieJar());
      alterIdToken = null;
      expect({ label, status: refused.status, code: refused.body?.error?.code }).toEqual({
        label,
        status: 401,
        code: 'oidc_response_invalid',
      });
      expect(refused.body?.error?.message).not.toMatch(/eyJ/);
    }
    // Nothing was linked or created by the refused answers: bea's invitation is still pending.
    expect(
      (await admin().get<{ data: { email: string }[] }>(`${CORE}/users?limit=100`)).body.data.map(
        (u) => u.email,
      ),
    ).not.toContain(email);

    // A replayed state: the same callback URL (code, state) a second time, with the same browser's cookies.
    const jar = new CookieJar();
    const first = await ssoSignIn(jar);
    expect(first.url.pathname).toBe('/chat');
    const replay = await fetch(first.callback!, {
      redirect: 'manual',
      headers: { cookie: jar.header(first.callback!) },
    });
    const replayed = (await replay.json()) as { error: { code: string } };
    expect(replay.status).toBe(401);
    expect(replayed.error.code).toBe('oidc_state_invalid');

    // Login CSRF: a browser that started its own sign-in is sent another sign-in's answer (code and state): refused by
    // the state check, and the browser's own start is used up by the attempt.
    const victim = new CookieJar();
    const attacker = new CookieJar();
    const victimsOwn = await browse(victim, `${CORE}/auth/oidc/corp/start`, {}, true);
    const attackers = await browse(attacker, `${CORE}/auth/oidc/corp/start`, {}, true);
    const forged = await fetch(attackers.callback!, {
      redirect: 'manual',
      headers: { cookie: victim.header(attackers.callback!) },
    });
    expect([forged.status, ((await forged.json()) as { error: { code: string } }).error.code]).toEqual([
      401,
      'oidc_state_invalid',
    ]);
    const afterwards = await fetch(victimsOwn.callback!, {
      redirect: 'manual',
      headers: { cookie: victim.header(victimsOwn.callback!) },
    });
    expect(afterwards.status).toBe(401);
    await afterwards.body?.cancel();
    expect(victim.value(api.url, 'ap_session')).toBeUndefined();
  });

  it('social: links from the session, then signs that user in; refuses an identity linked elsewhere and unknown people', async () => {
    const ada = await ssoUser('ada');
    const social = person(`social-${tag()}`, ada.email);
    // An unknown person at the social provider (with a user's email): never an account, never a link by email.
    account = social;
    const unknown = await ssoSignIn(new CookieJar(), 'social');
    expect([unknown.status, unknown.body?.error?.code]).toEqual([403, 'oidc_identity_not_linked']);

    // An API key cannot link (a session only); ada links it from her session.
    expect((await admin().post(`${CORE}/auth/oidc/social/link`, {})).status).toBe(403);
    expect((await linkSocial(ada.jar, social)).url.pathname).toBe('/settings');
    const identities = await withSession(ada.jar).get<{ data: { providerId: string }[] }>(
      `${CORE}/me/identities`,
    );
    expect(identities.body.data.map((i) => i.providerId).sort()).toEqual(['corp', 'social']);

    // Now the social provider signs ada in.
    const socialJar = new CookieJar();
    account = social;
    const landing = await ssoSignIn(socialJar, 'social', '/');
    expect({ path: landing.url.pathname, body: landing.body }).toEqual({ path: '/', body: null });
    expect((await withSession(socialJar).get<{ id: string }>(`${CORE}/users/me`)).body.id).toBe(ada.id);

    // bea (another user) tries to link the same social identity: refused, it stays ada's.
    const bea = await ssoUser('bea');
    const elsewhere = await linkSocial(bea.jar, social);
    expect([elsewhere.status, elsewhere.body?.error?.code]).toEqual([409, 'identity_linked_elsewhere']);
    const again = new CookieJar();
    await ssoSignIn(again, 'social');
    expect((await withSession(again).get<{ id: string }>(`${CORE}/users/me`)).body.id).toBe(ada.id);

    // Unlinking: the social provider no longer signs ada in.
    const unlink = await fetch(`${api.url}${CORE}/me/identities/social`, {
      method: 'DELETE',
      headers: { cookie: `ap_session=${ada.jar.value(api.url, 'ap_session')}`, origin: api.url },
    });
    expect(unlink.status).toBe(204);
    const afterUnlink = await ssoSignIn(new CookieJar(), 'social');
    expect(afterUnlink.body?.error?.code).toBe('oidc_identity_not_linked');
  });

  it('just-in-time accounts: only for a verified email of allowedDomains, and only where the provider allows them', async () => {
    const email = `pat-${tag()}@partner.example`;
    account = person(`partner-${tag()}`, email);
    const jar = new CookieJar();
    expect((await ssoSignIn(jar, 'partners')).url.pathname).toBe('/chat');
    const pat = await withSession(jar).get<{ email: string; role: string }>(`${CORE}/users/me`);
    expect(pat.body).toMatchObject({ email, role: 'member' });
    account = person(`partner-${tag()}`, `uma-${tag()}@partner.example`, false);
    expect((await ssoSignIn(new CookieJar(), 'partners')).body?.error?.code).toBe('oidc_email_unverified');
    account = person(`outsider-${tag()}`, `oz-${tag()}@elsewhere.example`);
    expect((await ssoSignIn(new CookieJar(), 'partners')).body?.error?.code).toBe('oidc_identity_not_linked');
    // Another identity with pat's (verified) email is not pat, and gets no second account: never linked by email.
    account = person(`impostor-${tag()}`, email);
    const impostor = await ssoSignIn(new CookieJar(), 'partners');
    expect([impostor.status, impostor.body?.error?.code]).toEqual([403, 'oidc_identity_not_linked']);
    // The corp provider has no justInTime: the same partner domain gets no account there.
    account = person(`partner-${tag()}`, `pia-${tag()}@partner.example`);
    expect((await ssoSignIn(new CookieJar(), 'corp')).body?.error?.code).toBe('oidc_identity_not_linked');
  });

  it('a deactivated user is not signed in by their provider', async () => {
    const dan = await ssoUser('dan');
    expect((await admin().post(`${CORE}/users/${dan.id}/deactivate`)).status).toBe(200);
    account = dan.account;
    const refused = await ssoSignIn(new CookieJar());
    expect([refused.status, refused.body?.error?.code]).toEqual([401, 'user_deactivated']);
  });

  it('records links and refusals as events with source and user agent, and no token, code or secret anywhere', async () => {
    const store = api.app.get<EventStore>(EVENT_STORE);
    const from = await store.headPosition();
    // A sign-in (a link by invitation), a link from the session and an unlink, and refusals of each kind.
    const gil = await ssoUser('gil');
    const social = person(`social-${tag()}`, `gil-social-${tag()}@example.com`);
    await linkSocial(gil.jar, social);
    const unlink = await fetch(`${api.url}${CORE}/me/identities/social`, {
      method: 'DELETE',
      headers: { cookie: `ap_session=${gil.jar.value(api.url, 'ap_session')}`, origin: api.url },
    });
    expect(unlink.status).toBe(204);
    const unverified = `unverified-${tag()}@example.com`;
    await invite(unverified);
    account = person(`unverified-${tag()}`, unverified, false);
    await ssoSignIn(new CookieJar());
    account = social;
    await ssoSignIn(new CookieJar(), 'social');
    account = gil.account;
    alterIdToken = (idToken) => `${idToken.slice(0, -4)}AAAA`;
    await ssoSignIn(new CookieJar());
    alterIdToken = null;
    const jar = new CookieJar();
    const first = await ssoSignIn(jar);
    const replay = await fetch(first.callback!, {
      redirect: 'manual',
      headers: { cookie: jar.header(first.callback!) },
    });
    expect(replay.status).toBe(401);
    await replay.body?.cancel();

    const events = (await store.readAll({ after: from, maxCount: 10_000 })) as unknown as {
      type: string;
      data: Record<string, unknown>;
    }[];
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['IdentityLinked', 'IdentityUnlinked', 'SignInFailed']));
    const links = events.filter((e) => e.type === 'IdentityLinked').map((e) => e.data.via);
    expect(links.sort()).toEqual(['invitation', 'session']);
    const failures = events.filter((e) => e.type === 'SignInFailed').map((e) => e.data);
    expect(failures.map((f) => f.reason).sort()).toEqual([
      'email_unverified',
      'identity_not_linked',
      'invalid_response',
      'invalid_state',
    ]);
    for (const event of [
      ...failures,
      ...events.filter((e) => e.type.startsWith('Identity')).map((e) => e.data),
    ])
      expect(event.source).toEqual({ address: '127.0.0.1', userAgent: expect.any(String) });
    const sessions = events.filter((e) => e.type === 'SessionStarted' && e.data.method === 'oidc');
    expect(sessions.map((e) => e.data.providerId)).toEqual(['corp', 'corp']);

    // Nothing secret, in these events or anywhere in the log and the api's log lines.
    const secrets = [SSO_SECRET, SOCIAL_SECRET, first.callback!.searchParams.get('code')!];
    secrets.push(first.callback!.searchParams.get('state')!);
    const everything: string[] = [];
    for (let after = 0; ;) {
      const page = await store.readAll({ after, maxCount: 1000 });
      if (page.length === 0) break;
      everything.push(JSON.stringify(page));
      after = page.at(-1)!.position;
    }
    everything.push(api.logs());
    const text = everything.join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/); // no JWT
    expect(text).not.toMatch(/code_verifier|"nonce"|"state"/);
  });
});
