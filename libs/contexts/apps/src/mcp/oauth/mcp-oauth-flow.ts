// The two halves of an MCP server's OAuth 2.1 authorization code flow, run by the MCP SDK's `auth()` through the
// platform's outbound guard (the authorization server is an outbound call like the MCP server): `beginAuthorization`
// discovers the servers' metadata, registers a client when there is none, and answers the URL the person opens (the
// PKCE verifier kept by the session); `finishAuthorization` exchanges the code the redirect brought for tokens. Both
// answer McpUnreachable with a reason that names no secret.
import { McpUnreachable, type McpClientLimits } from '../mcp-client.js';
import { guardedFetch } from '../mcp-fetch.js';
import { checkOutboundUrl, outboundAgent } from '../outbound-address.js';
import type { McpOAuthSession } from './mcp-oauth-session.js';

const loadAuth = () => import('@modelcontextprotocol/sdk/client/auth.js');

async function runAuth<T>(
  serverUrl: string,
  limits: McpClientLimits,
  run: (auth: Awaited<ReturnType<typeof loadAuth>>['auth'], fetchFn: typeof fetch) => Promise<T>,
): Promise<T> {
  try {
    checkOutboundUrl(new URL(serverUrl), limits.allowLinkLocal);
  } catch (error) {
    throw new McpUnreachable((error as Error).message);
  }
  const { auth } = await loadAuth();
  const agent = outboundAgent(limits.allowLinkLocal);
  try {
    return await run(auth, guardedFetch(agent, limits).fetch);
  } catch (error) {
    if (error instanceof McpUnreachable) throw error;
    // The SDK's OAuth errors carry the authorization server's own `error` and description, never our secrets.
    const message = error instanceof Error ? error.message : String(error);
    throw new McpUnreachable(`the authorization failed: ${message.slice(0, 300)}`);
  } finally {
    await agent.close().catch(() => undefined);
  }
}

/** The authorization URL the person opens; the session keeps the verifier and any client registered on the way. */
export async function beginAuthorization(
  serverUrl: string,
  session: McpOAuthSession,
  limits: McpClientLimits,
  scope?: string,
): Promise<URL> {
  return runAuth(serverUrl, limits, async (auth, fetchFn) => {
    const result = await auth(session, { serverUrl, fetchFn, ...(scope ? { scope } : {}) });
    const url = session.changes.authorizationUrl;
    if (result !== 'REDIRECT' || !url)
      throw new McpUnreachable('the authorization server did not ask for a sign-in');
    return url;
  });
}

/** Exchanges the code for tokens (left in `session.changes.tokens`). */
export async function finishAuthorization(
  serverUrl: string,
  session: McpOAuthSession,
  code: string,
  limits: McpClientLimits,
): Promise<void> {
  await runAuth(serverUrl, limits, async (auth, fetchFn) => {
    const result = await auth(session, { serverUrl, authorizationCode: code, fetchFn });
    if (result !== 'AUTHORIZED' || !session.changes.tokens)
      throw new McpUnreachable('the authorization server gave no tokens');
  });
}
