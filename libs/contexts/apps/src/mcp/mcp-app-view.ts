// MCP Apps (the ext-apps extension) as the platform reads them: a tool's `_meta.ui` (the `ui://` view its results
// render in, and whether the model, the view or both may call it), and the Content-Security-Policy a view document is
// served with. The view runs in a CSP sandbox without `allow-same-origin` — an opaque origin that cannot read the
// platform's cookies or storage — and reaches only the domains its resource declares (`_meta.ui.csp`), never the
// platform's own origin; nothing declared means no network at all, as the extension's spec asks of hosts.
import type { McpToolOffer } from './mcp-offer.js';

/** The MIME type of an MCP App view (a `ui://` resource of HTML). */
export const MCP_APP_MIME = 'text/html;profile=mcp-app';

type ToolUi = NonNullable<McpToolOffer['ui']>;

const VISIBILITY = new Set(['model', 'app']);
const UI_URI = /^ui:\/\/[^\s]{1,2000}$/;

/** A tool's `_meta.ui` as recorded: the nested form, or the older flat `ui/resourceUri` key. */
export function toolUi(meta: Record<string, unknown> | undefined): ToolUi | undefined {
  if (!meta) return undefined;
  const nested = (typeof meta.ui === 'object' && meta.ui !== null ? meta.ui : {}) as Record<string, unknown>;
  const uri = nested.resourceUri ?? meta['ui/resourceUri'];
  const visibility = Array.isArray(nested.visibility)
    ? nested.visibility.filter((who): who is 'model' | 'app' => VISIBILITY.has(who as string))
    : undefined;
  const ui = {
    ...(typeof uri === 'string' && UI_URI.test(uri) ? { resourceUri: uri } : {}),
    ...(visibility ? { visibility } : {}),
  };
  return Object.keys(ui).length > 0 ? ui : undefined;
}

/** The `ui://` view a tool's results render in, if it declares one. */
export const toolView = (offer: McpToolOffer): string | undefined => offer.ui?.resourceUri;

/** Whether the model is offered the tool (a tool visible to its view alone is not). */
export const modelMayCall = (offer: McpToolOffer): boolean =>
  !offer.ui?.visibility || offer.ui.visibility.includes('model');

/** Whether a view may call the tool through the host (a tool visible to the model alone may not). */
export const viewMayCall = (offer: McpToolOffer): boolean =>
  !offer.ui?.visibility || offer.ui.visibility.includes('app');

/** A source a CSP directive can carry: scheme, host (with a leading `*.`), port; nothing that could end it. */
const SOURCE = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]{1,253}(:\d{1,5}|:\*)?$/;

function sources(declared: unknown, platformOrigin: string): string[] {
  if (!Array.isArray(declared)) return [];
  const platform = platformOrigin.toLowerCase();
  return [
    ...new Set(
      declared
        .filter((entry): entry is string => typeof entry === 'string')
        .map((entry) => entry.trim().replace(/\/+$/, ''))
        .filter((entry) => SOURCE.test(entry) && entry.toLowerCase() !== platform),
    ),
  ].slice(0, 50);
}

/**
 * The CSP of a view document: its own inline scripts and styles, data: images and fonts, and only the domains its
 * resource's `_meta.ui.csp` declares (connect, resource, frame); framed by the platform's pages only.
 */
export function viewCsp(meta: Record<string, unknown> | undefined, platformOrigin: string): string {
  const ui = (typeof meta?.ui === 'object' && meta.ui !== null ? meta.ui : {}) as Record<string, unknown>;
  const csp = (typeof ui.csp === 'object' && ui.csp !== null ? ui.csp : {}) as Record<string, unknown>;
  const list = (declared: string[], fallback: string) =>
    declared.length > 0 ? declared.join(' ') : fallback;
  const resources = sources(csp.resourceDomains, platformOrigin);
  const connect = sources(csp.connectDomains, platformOrigin);
  const frames = sources(csp.frameDomains, platformOrigin);
  const extra = resources.length > 0 ? ` ${resources.join(' ')}` : '';
  return [
    'sandbox allow-scripts allow-forms',
    "default-src 'none'",
    `script-src 'unsafe-inline'${extra}`,
    `style-src 'unsafe-inline'${extra}`,
    `img-src data: blob:${extra}`,
    `font-src data:${extra}`,
    `media-src data: blob:${extra}`,
    `connect-src ${list(connect, "'none'")}`,
    `frame-src ${list(frames, "'none'")}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/**
 * The MCP result a view is given: the text the model read and the structured content, the latter left out when the
 * two together pass the result cap (a view's result is sealed in the answer's provenance, which must stay small).
 */
export function viewResult(
  outcome: { readonly text: string; readonly structured?: unknown },
  maxBytes: number,
): string {
  const content = [{ type: 'text', text: outcome.text }];
  const whole = JSON.stringify({ content, structuredContent: outcome.structured });
  return outcome.structured !== undefined && Buffer.byteLength(whole) <= maxBytes
    ? whole
    : JSON.stringify({ content });
}
