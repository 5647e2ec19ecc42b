// The OpenID Connect relying party (openid-client): the authorization code flow with PKCE, `state` and `nonce`.
// Starting keeps the state, nonce and code verifier in this process, under the SHA-256 of a random value that only
// the browser holds (cookie `ap_oidc`, HttpOnly, SameSite=Lax, ten minutes, scoped to the callback's path); the
// callback takes it out (single use) and lets openid-client check the answer: `state`, the ID token's signature
// (enableNonRepudiationChecks: without it a token from the token endpoint is trusted on TLS alone), `iss`, `aud`/`azp`
// (this client only), expiry and `nonce`. What it answers is the verified claims; no token leaves this file, and no
// error carries one. A sign-in started in one api process must come back to it (sticky sessions when scaled out).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
// openid-client is loaded when a provider is first used (an instance without AUTH_PROVIDERS_FILE never pays for it).
import type * as Oidc from 'openid-client';

let loaded: Promise<typeof Oidc> | undefined;
const openidClient = (): Promise<typeof Oidc> => (loaded ??= import('openid-client'));
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLATFORM_CONFIG, PlatformError, UnauthorizedError, type PlatformConfig } from '#kernel';
import { clearSecretCookie, secretCookieOf, setSecretCookie } from '../sessions/secret-cookies.js';
import { LOOPBACK, loadProviders, type AuthProvider } from './providers-file.js';

/** What the sign-in is for: signing someone in, or linking the identity to the signed-in user. */
export type OidcIntent = { readonly kind: 'signIn' } | { readonly kind: 'link'; readonly userId: string };

/** The claims of a verified ID token that the platform reads. */
export interface VerifiedIdentity {
  readonly providerId: string;
  readonly subject: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly name: string | null;
}

interface Pending {
  readonly providerId: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly returnTo: string;
  readonly intent: OidcIntent;
  readonly expiresAt: number;
}

export const OIDC_COOKIE = 'ap_oidc';
const PENDING_TTL_MS = 10 * 60_000;
const PENDING_LIMIT = 10_000;
const CALLBACK_PATH = '/api/v1/core/auth/oidc';
const oidcCookieScope = (secure: boolean) => ({ path: CALLBACK_PATH, secure });

/** A failed single sign-on: 401 with a code, and the reason recorded on the SignInFailed event. */
export class OidcSignInError extends UnauthorizedError {
  constructor(
    code: string,
    message: string,
    readonly reason: 'invalid_response' | 'invalid_state',
  ) {
    super(code, message);
  }
}

const sameSecret = (presented: string | null, expected: string) =>
  presented !== null &&
  presented.length === expected.length &&
  timingSafeEqual(Buffer.from(presented), Buffer.from(expected));

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** A path of this instance to go back to after signing in (never another origin). */
export const safeReturnTo = (value: unknown): string =>
  typeof value === 'string' && /^\/(?![/\\])[^\s\\]{0,2000}$/.test(value) ? value : '/';

@Injectable()
export class OidcSignIn {
  private readonly providers: ReadonlyMap<string, AuthProvider>;
  private readonly configurations = new Map<string, Promise<Oidc.Configuration>>();
  private readonly pending = new Map<string, Pending>();

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {
    this.providers = new Map(loadProviders(config).map((provider) => [provider.id, provider]));
  }

  list(): readonly AuthProvider[] {
    return [...this.providers.values()];
  }

  provider(providerId: string): AuthProvider {
    const provider = this.providers.get(providerId);
    if (!provider)
      throw new PlatformError(
        'not_found',
        'auth_provider_not_found',
        `Provider '${providerId}' was not found`,
      );
    return provider;
  }

  /** The provider's authorization URL; the browser gets the cookie that binds the callback to this start. */
  async start(
    providerId: string,
    intent: OidcIntent,
    returnTo: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<URL> {
    const provider = this.provider(providerId);
    const configuration = await this.configuration(provider);
    const oidc = await openidClient();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const redirectUri = `${this.baseUrl(request)}${CALLBACK_PATH}/${provider.id}/callback`;
    const browser = randomBytes(32).toString('base64url');
    this.sweep();
    this.pending.set(digest(browser), {
      providerId: provider.id,
      state,
      nonce,
      codeVerifier,
      redirectUri,
      returnTo: safeReturnTo(returnTo),
      intent,
      expiresAt: Date.now() + PENDING_TTL_MS,
    });
    setSecretCookie(
      reply,
      OIDC_COOKIE,
      browser,
      oidcCookieScope(redirectUri.startsWith('https:')),
      PENDING_TTL_MS,
    );
    return oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: provider.scopes.join(' '),
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
  }

  /**
   * The callback: the start it belongs to (taken out: a state is used once), and the provider's answer verified.
   * Every refusal is a 401 whose message names no token.
   */
  async finish(
    providerId: string,
    request: FastifyRequest,
  ): Promise<{ identity: VerifiedIdentity; intent: OidcIntent; returnTo: string }> {
    const provider = this.provider(providerId);
    const browser = secretCookieOf(request, OIDC_COOKIE);
    const key = browser ? digest(browser) : null;
    const pending = key ? this.pending.get(key) : undefined;
    if (key) this.pending.delete(key);
    if (!pending || pending.providerId !== provider.id || pending.expiresAt <= Date.now())
      throw new OidcSignInError(
        'oidc_state_invalid',
        'this sign-in was not started here, has expired or was already used: start again',
        'invalid_state',
      );
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    const currentUrl = new URL(`${pending.redirectUri}${query}`);
    // The answer must be for this browser's own start (login CSRF); openid-client checks it again.
    if (!sameSecret(currentUrl.searchParams.get('state'), pending.state))
      throw new OidcSignInError(
        'oidc_state_invalid',
        'the provider answered for another sign-in (state): start again',
        'invalid_state',
      );
    const configuration = await this.configuration(provider);
    const oidc = await openidClient();
    let claims: Oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new OidcSignInError(
        'oidc_response_invalid',
        `the provider's answer was refused (${typeof code === 'string' ? code : 'unverifiable'})`,
        'invalid_response',
      );
    }
    if (!claims?.sub)
      throw new OidcSignInError('oidc_response_invalid', 'the provider sent no ID token', 'invalid_response');
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null;
    const name = typeof claims.name === 'string' ? claims.name.trim().slice(0, 200) : null;
    return {
      identity: {
        providerId: provider.id,
        subject: claims.sub,
        email: email && email.length <= 254 ? email : null,
        emailVerified: claims.email_verified === true,
        name: name || null,
      },
      intent: pending.intent,
      returnTo: pending.returnTo,
    };
  }

  /** Where the provider sends the browser back: PUBLIC_URL, else this request's own origin. */
  private baseUrl(request: FastifyRequest): string {
    if (this.config.people.publicUrlSet) return this.config.people.publicUrl;
    return `${request.protocol}://${request.host}`;
  }

  /** The provider's metadata (discovered once; a failed discovery is tried again at the next sign-in). */
  private configuration(provider: AuthProvider): Promise<Oidc.Configuration> {
    let found = this.configurations.get(provider.id);
    if (!found) {
      const insecure =
        new URL(provider.issuer).protocol === 'http:' && LOOPBACK.has(new URL(provider.issuer).hostname);
      found = openidClient()
        .then((oidc) =>
          oidc.discovery(
            new URL(provider.issuer),
            provider.clientId,
            undefined,
            oidc.ClientSecretBasic(provider.clientSecret),
            {
              execute: [oidc.enableNonRepudiationChecks, ...(insecure ? [oidc.allowInsecureRequests] : [])],
              timeout: 10,
            },
          ),
        )
        .catch((error: unknown) => {
          this.configurations.delete(provider.id);
          const code = (error as { code?: unknown }).code;
          throw new PlatformError(
            'upstream_failed',
            'auth_provider_unavailable',
            `the provider '${provider.id}' could not be reached (${typeof code === 'string' ? code : 'discovery failed'})`,
          );
        });
      this.configurations.set(provider.id, found);
    }
    return found;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, pending] of this.pending) if (pending.expiresAt <= now) this.pending.delete(key);
    while (this.pending.size >= PENDING_LIMIT) this.pending.delete(this.pending.keys().next().value!);
  }
}

/** The browser's binding to its start is over (used, or refused): its cookie goes. */
export const clearOidcCookie = (reply: FastifyReply, secure: boolean): FastifyReply =>
  clearSecretCookie(reply, OIDC_COOKIE, oidcCookieScope(secure));
