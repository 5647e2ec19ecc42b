// The cookies the platform sets on its own origin. An App served through the proxy shares that origin, so the proxy
// refuses any cookie of an App whose name could be read as one of these (see the App proxy's cookie rewriting).
import { OIDC_COOKIE } from '../oidc/oidc-sign-in.js';
import { SESSION_COOKIE } from './session-cookie.js';

export const PLATFORM_COOKIES: readonly string[] = [SESSION_COOKIE, OIDC_COOKIE];
