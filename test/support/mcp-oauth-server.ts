// An MCP server that requires OAuth 2.1, built from the MCP SDK's own parts on loopback: its authorization server
// router (metadata, dynamic client registration, the authorize and token endpoints with PKCE checked, client
// authentication) over its demo in-memory provider, its protected-resource metadata, its bearer-token middleware in
// front of a streamable HTTP MCP server. Two things are added around the demo provider, which has neither: refresh
// tokens (rotated at each use) and an account per authorization (`account-1`, `account-2`, … in the order people
// sign in), which the `whoami` tool answers, so a test sees whose token a call carried. `expireAccessTokens` ends
// every access token at once (no clock to wait for). `connectAccount` connects a person as their browser would.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface OAuthMcpServer {
  /** The MCP endpoint. */
  readonly url: string;
  /** Every access and refresh token issued so far (to look for them where they must not be). */
  readonly issued: string[];
  /** The access tokens the MCP endpoint accepted, in order. */
  readonly accepted: string[];
  expireAccessTokens(): void;
  stop(): Promise<void>;
}

class AccountsProvider implements OAuthServerProvider {
  private readonly demo = new DemoInMemoryAuthProvider();
  private accounts = 0;
  private readonly codeAccounts = new Map<string, string>();
  /** Access token → its account, for tokens still valid. */
  private readonly live = new Map<string, { account: string; clientId: string; scopes: string[] }>();
  private readonly refreshTokens = new Map<string, { account: string; clientId: string; scopes: string[] }>();
  readonly issued: string[] = [];

  get clientsStore() {
    return this.demo.clientsStore;
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
    const account = `account-${++this.accounts}`;
    // The demo approves at once and redirects with the code: the code is noted with this authorization's account.
    const noting = Object.create(res) as Response;
    Object.defineProperty(noting, 'cookie', { value: undefined });
    noting.redirect = ((url: string) => {
      this.codeAccounts.set(new URL(url).searchParams.get('code') ?? '', account);
      res.redirect(url);
    }) as Response['redirect'];
    await this.demo.authorize(client, params, noting);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string) {
    return this.demo.challengeForAuthorizationCode(client, code);
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    verifier?: string,
  ): Promise<OAuthTokens> {
    const account = this.codeAccounts.get(code) ?? 'unknown';
    const tokens = await this.demo.exchangeAuthorizationCode(client, code, verifier);
    const scopes = tokens.scope ? tokens.scope.split(' ') : [];
    return this.issue(tokens.access_token, { account, clientId: client.client_id, scopes });
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) throw new Error('unknown refresh token');
    this.refreshTokens.delete(refreshToken);
    return this.issue(randomUUID(), grant);
  }

  private issue(
    accessToken: string,
    grant: { account: string; clientId: string; scopes: string[] },
  ): OAuthTokens {
    const refreshToken = randomUUID();
    this.live.set(accessToken, grant);
    this.refreshTokens.set(refreshToken, grant);
    this.issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: refreshToken,
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(' ') } : {}),
    };
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.live.get(token);
    if (!grant) throw new InvalidTokenError('Invalid or expired token');
    return {
      token,
      clientId: grant.clientId,
      scopes: grant.scopes,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      extra: { account: grant.account },
    };
  }

  expireAccessTokens(): void {
    this.live.clear();
  }
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'oauth-notes', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Names the account the call is made with' }, (extra) => ({
    content: [{ type: 'text', text: `signed in as ${String(extra.authInfo?.extra?.account ?? 'nobody')}` }],
  }));
  return server;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const provider = new AccountsProvider();
  const accepted: string[] = [];
  const app = express();
  app.use(express.json());
  const http: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['notes'],
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.post('/mcp', bearer, async (req, res) => {
    accepted.push((req as { auth?: AuthInfo }).auth?.token ?? '');
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no stream to open or session to end.
  app.get('/mcp', (_req, res) => void res.status(405).end());
  app.delete('/mcp', (_req, res) => void res.status(405).end());
  return {
    url: mcpUrl.href,
    issued: provider.issued,
    accepted,
    expireAccessTokens: () => provider.expireAccessTokens(),
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * Connects the key's person to the App as a browser would (the authorization server approves at once): starts the
 * connection, follows the redirect, calls the platform's callback with the key. Answers the callback's response.
 */
export async function connectAccount(base: string, key: string, appId: string): Promise<globalThis.Response> {
  const started = await fetch(`${base}/api/v1/core/apps/${appId}/oauth/connect`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ returnTo: '/chat' }),
  });
  const { authorizationUrl } = (await started.json()) as { authorizationUrl: string };
  const approved = await fetch(authorizationUrl, { redirect: 'manual' });
  await approved.body?.cancel();
  const back = new URL(approved.headers.get('location')!);
  const done = await fetch(`${base}${back.pathname}${back.search}`, {
    headers: { 'x-api-key': key },
    redirect: 'manual',
  });
  await done.body?.cancel();
  return done;
}
