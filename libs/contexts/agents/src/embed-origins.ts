// Where a public Agent may be embedded: the Content-Security-Policy of pages (scripts, styles and connections from the
// instance only, no inline script, images only from the instance's content routes on the app's pages), the embed
// page's `frame-ancestors 'self' <Allowed URLs>` (`*` any site; an empty list only the instance: never allow-all by
// default), and the check of an Origin or Referer against the Allowed URLs (a second line: a header can be forged or
// left out).

const BASE = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

/** The CSP of the plain pages (the embed's refusals): no images, framed by the instance itself only. */
export const APP_CSP = [...BASE, "img-src 'none'", "frame-ancestors 'self'"].join('; ');

/**
 * Where an image in a rendered answer may come from: the core API's content routes, which answer the viewer's own
 * files (a Knowledge document's download, a file the code of their conversation produced). Never an App (`/app/`,
 * whose answers carry its data and mint a session token) nor the bridge, nor another origin, nor data:. CSP cannot
 * say `'self'` with a path, and its paths are prefixes (no wildcard inside), so these are the narrowest prefixes that
 * hold both routes; the web app's Markdown checks the exact routes (apps/web/src/content-images.ts).
 */
export const CONTENT_IMAGE_PREFIXES = ['/api/v1/core/knowledge/', '/api/v1/core/llm/'] as const;

/** An origin a CSP source may carry: scheme, host (name or IP), port; nothing that could end the directive. */
const ORIGIN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** The pages' icon: one exact path (a CSP source with a path not ending in `/` matches that file only). */
export const FAVICON_PATH = '/favicon.svg';

/**
 * `img-src` of the app's pages: the content routes of the instance's origin and its icon (`'none'` when the origin is
 * not a clean one).
 */
const contentImages = (instanceOrigin: string): string =>
  ORIGIN.test(instanceOrigin)
    ? `img-src ${[...CONTENT_IMAGE_PREFIXES, FAVICON_PATH].map((path) => `${instanceOrigin}${path}`).join(' ')}`
    : "img-src 'none'";

/**
 * Where the instance serves MCP App views (a tool's `ui://` view under an answer): every answer there is a document in
 * a CSP sandbox without `allow-same-origin`, an opaque origin, so the pages frame them by this path even with an App
 * origin.
 */
export const MCP_VIEWS_PATH = '/api/v1/core/mcp-views/';

/**
 * `frame-src` of the app's pages: the App views of a chat, and the preview of an Agent's embed on its settings page.
 * With an App origin (APP_ORIGIN) that origin, and the instance's embed pages by their path (`/embed/`), never
 * `'self'`: Apps live on a separate origin precisely so that framing the instance does not let an App in, and the
 * embed page is the instance's own (its scripts and CSP are the platform's; it frames nothing). Without one the
 * platform's own origin, which holds both (every App answer there carries a CSP sandbox and the iframe has no
 * `allow-same-origin`).
 */
const frames = (appOrigin: string | null, instanceOrigin: string): string =>
  appOrigin === null
    ? "frame-src 'self'"
    : `frame-src ${appOrigin}${ORIGIN.test(instanceOrigin) ? ` ${instanceOrigin}/embed/ ${instanceOrigin}${MCP_VIEWS_PATH}` : ''}`;

/**
 * The web app's CSP (every route of its one page: the browser keeps a document's CSP across the app's own
 * navigation, so what a page frames is allowed from whichever route the app was opened at).
 */
export const chatCsp = (appOrigin: string | null, instanceOrigin: string): string =>
  [...BASE, contentImages(instanceOrigin), frames(appOrigin, instanceOrigin), "frame-ancestors 'self'"].join(
    '; ',
  );

/** A source the header can carry: `*`, or an origin / host pattern (the Agent schema's shape) without a path. */
const SOURCE = /^(\*|(https?:\/\/)?(\*\.)?[A-Za-z0-9.-]+(:\d{1,5}|:\*)?)$/;

/** `frame-ancestors 'self' <allowedUrls>` for an Agent's embed page (paths dropped: the browser checks origins). */
export function embedCsp(allowedUrls: readonly string[], instanceOrigin: string): string {
  const sources = allowedUrls
    .map((url) => url.trim().replace(/^((?:https?:\/\/)?[^/]+)(\/.*)?$/, '$1'))
    .filter((url) => SOURCE.test(url));
  const ancestors = ["'self'", ...new Set(sources)].join(' ');
  // The embed's visitor has no cookie for the content routes: its answers show no image; only the page's icon.
  const images = ORIGIN.test(instanceOrigin) ? `img-src ${instanceOrigin}${FAVICON_PATH}` : "img-src 'none'";
  return [...BASE, images, `frame-ancestors ${ancestors}`].join('; ');
}

/** Whether a page of `origin` may embed an Agent with these Allowed URLs (the Origin/Referer second line). */
export function originAllowed(origin: string, allowedUrls: readonly string[], self: string): boolean {
  if (origin === self) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return allowedUrls.some((entry) => {
    if (entry === '*') return true;
    const withScheme = /^https?:\/\//.test(entry) ? entry : `${url.protocol}//${entry}`;
    const match = /^(https?:)\/\/(\*\.)?([^/:]+)(?::(\d+|\*))?/.exec(withScheme);
    if (!match) return false;
    const [, scheme, wildcard, host, port] = match;
    if (scheme !== url.protocol) return false;
    const hostOk = wildcard
      ? url.hostname.endsWith(`.${host!.toLowerCase()}`)
      : url.hostname === host!.toLowerCase();
    const defaultPort = url.protocol === 'https:' ? '443' : '80';
    const portOk = port === '*' || (port ?? defaultPort) === (url.port || defaultPort);
    return hostOk && portOk;
  });
}
