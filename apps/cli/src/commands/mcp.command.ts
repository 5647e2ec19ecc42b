// `mcp connect <url> [--bearer T | --oauth …] [--call TOOL --args JSON]`: connects to an MCP server exactly as the
// platform does (the same client, bounds and outbound guard, from the same configuration) and prints what it offers,
// or calls one tool and prints what a model would read of the result (progress on stderr). A tool error exits 1.
// With --oauth, a server that asks for authorization (at connect, or for more scopes during a call) gets the OAuth
// 2.1 flow of the MCP authorization spec — the SDK's discovery, dynamic or pre-registered client, PKCE — with a
// loopback redirect on 127.0.0.1: the authorization URL is printed on stderr (or followed by the CLI itself with
// --authorize-with-fetch), the code exchanged, and the work done again with the tokens, held in memory only. The
// server's questions are declined, or with --accept-defaults accepted with its form's defaults.
import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import {
  finishAuthorization,
  mcpClientLimits,
  McpConnection,
  McpOAuthSession,
  McpUnreachable,
  type McpClientLimits,
  type McpOffer,
  type McpSessionHost,
} from '#apps';
import { CLI_OUTPUT, CliError, type CliOutput } from '../output.js';
import { groupCommand } from './options.js';
import { followAuthorization, newState, openLoopback, type Loopback } from './mcp-oauth-loopback.js';

interface ConnectFlags {
  readonly bearer?: string;
  readonly oauth?: boolean;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scope?: string;
  readonly authorizeWithFetch?: boolean;
  readonly acceptDefaults?: boolean;
  readonly call?: string;
  readonly args?: Record<string, unknown>;
}

/**
 * A client with no person to ask: a question is accepted with nothing filled in, so the form's defaults apply (the
 * client applies them: CLIENT_CAPABILITIES' `applyDefaults`, SEP-1034). Without --accept-defaults it is declined.
 */
const ACCEPTING_DEFAULTS: McpSessionHost = {
  elicit: () => Promise.resolve({ action: 'accept', content: {} }),
};

/** Authorizations in one run: the first, and a step-up or two for more scopes. */
const MAX_AUTHORIZATIONS = 3;
/** How long a person has to approve in the browser. */
const AUTHORIZATION_WAIT_MS = 5 * 60_000;

function offerLines(offer: McpOffer): string[] {
  const width = Math.max(0, ...offer.tools.map((tool) => tool.name.length));
  return [
    `server: ${offer.server.name} ${offer.server.version}`.trimEnd(),
    `tools: ${offer.tools.length}`,
    ...offer.tools.map((tool) => {
      const description = tool.description.split('\n')[0]!.slice(0, 100);
      return `  ${tool.name.padEnd(width)}  ${description}`.trimEnd();
    }),
    `resources: ${offer.resources.length}`,
    `prompts: ${offer.prompts.length}`,
  ];
}

@SubCommand({
  name: 'connect',
  arguments: '<url>',
  description:
    "initialize the MCP server at <url> (streamable HTTP) and print its tools and its resources' and prompts' counts, " +
    'or call one tool with --call and --args and print its result as a model reads it',
})
export class McpConnectCommand extends CommandRunner {
  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {
    super();
  }

  async run([url]: string[], flags: ConnectFlags = {}): Promise<void> {
    if (flags.args && !flags.call) throw new CliError('--args needs --call <tool>');
    const limits = mcpClientLimits(this.config);
    if (!flags.oauth) return this.once(url ?? '', flags, limits);
    const loopback = await openLoopback();
    const state = newState();
    const session = new McpOAuthSession({
      redirectUrl: loopback.redirectUrl,
      state,
      ...(flags.scope ? { scopes: flags.scope.split(' ').filter(Boolean) } : {}),
      ...(flags.clientId
        ? {
            client: {
              client_id: flags.clientId,
              ...(flags.clientSecret ? { client_secret: flags.clientSecret } : {}),
            },
            preRegistered: true,
          }
        : {}),
    });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await this.once(url ?? '', flags, limits, session);
        } catch (error) {
          const authorizationUrl = session.changes.authorizationUrl;
          // Authorized already and asked again (a step-up): once more, then it is the server's fault.
          if (!authorizationUrl || attempt >= MAX_AUTHORIZATIONS) throw error;
          delete session.changes.authorizationUrl;
          await this.authorize(url ?? '', authorizationUrl, session, loopback, state, limits, flags);
        }
      }
    } finally {
      await loopback.close();
    }
  }

  private async authorize(
    url: string,
    authorizationUrl: URL,
    session: McpOAuthSession,
    loopback: Loopback,
    state: string,
    limits: McpClientLimits,
    flags: ConnectFlags,
  ): Promise<void> {
    this.output.note(`authorize: ${authorizationUrl.href}`);
    try {
      const code = loopback.code(state, AUTHORIZATION_WAIT_MS);
      if (flags.authorizeWithFetch) await followAuthorization(authorizationUrl, loopback.redirectUrl);
      await finishAuthorization(url, session, await code, limits);
    } catch (error) {
      if (error instanceof McpUnreachable) throw new CliError(error.reason);
      throw new CliError((error as Error).message);
    }
  }

  private async once(
    url: string,
    flags: ConnectFlags,
    limits: McpClientLimits,
    session?: McpOAuthSession,
  ): Promise<void> {
    let connection: McpConnection;
    try {
      connection = await McpConnection.open(
        { url, ...(flags.bearer ? { bearer: flags.bearer } : {}), ...(session ? { oauth: session } : {}) },
        limits,
        flags.acceptDefaults ? ACCEPTING_DEFAULTS : undefined,
      );
    } catch (error) {
      if (error instanceof McpUnreachable) throw new CliError(error.reason);
      throw error;
    }
    try {
      if (!flags.call) {
        for (const line of offerLines(await connection.offer())) this.output.line(line);
        return;
      }
      const outcome = await connection.callTool(flags.call, flags.args ?? {}, {
        onProgress: ({ progress, total, message }) =>
          this.output.note(
            `progress: ${progress}${total !== undefined ? `/${total}` : ''}${message ? ` ${message}` : ''}`,
          ),
      });
      if (!outcome.ok) throw new CliError(`tool error: ${outcome.error}`);
      this.output.line(outcome.text);
    } catch (error) {
      if (error instanceof McpUnreachable) throw new CliError(error.reason);
      throw error;
    } finally {
      await connection.close();
    }
  }

  @Option({
    flags: '--oauth',
    description: 'authorize with OAuth 2.1 when the server asks (loopback redirect)',
  })
  parseOauth(): boolean {
    return true;
  }

  @Option({
    flags: '--client-id <id>',
    description: 'with --oauth: a pre-registered client (else registered)',
  })
  parseClientId(value: string): string {
    return value;
  }

  @Option({ flags: '--client-secret <secret>', description: "with --client-id: the client's secret" })
  parseClientSecret(value: string): string {
    return value;
  }

  @Option({ flags: '--scope <scopes>', description: 'with --oauth: the scopes to ask for, space-separated' })
  parseScope(value: string): string {
    return value;
  }

  @Option({
    flags: '--accept-defaults',
    description: "answer the server's questions (elicitation) by accepting the defaults its form gives",
  })
  parseAcceptDefaults(): boolean {
    return true;
  }

  @Option({
    flags: '--authorize-with-fetch',
    description: 'with --oauth: follow the authorization URL here (servers that approve without a person)',
  })
  parseAuthorizeWithFetch(): boolean {
    return true;
  }

  @Option({ flags: '--bearer <token>', description: 'send Authorization: Bearer <token>' })
  parseBearer(value: string): string {
    return value;
  }

  @Option({ flags: '--call <tool>', description: 'call this tool instead of listing' })
  parseCall(value: string): string {
    return value;
  }

  @Option({ flags: '--args <json>', description: "the tool's arguments, a JSON object (default {})" })
  parseArgs(value: string): Record<string, unknown> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new CliError('--args is not JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new CliError('--args must be a JSON object');
    return parsed as Record<string, unknown>;
  }
}

@Command({
  name: 'mcp',
  description: 'MCP servers, reached as the platform reaches them',
  subCommands: [McpConnectCommand],
})
export class McpCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('mcp', params, this.command);
  }
}
