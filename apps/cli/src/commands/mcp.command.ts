// `mcp connect <url> [--bearer T] [--call TOOL --args JSON]`: connects to an MCP server exactly as the platform does
// (the same client, bounds and outbound guard, from the same configuration) and prints what it offers, or calls one
// tool and prints what a model would read of the result (progress on stderr). A tool error exits 1.
import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { mcpClientLimits, McpConnection, McpUnreachable, type McpOffer } from '#apps';
import { CLI_OUTPUT, CliError, type CliOutput } from '../output.js';
import { groupCommand } from './options.js';

interface ConnectFlags {
  readonly bearer?: string;
  readonly call?: string;
  readonly args?: Record<string, unknown>;
}

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
    let connection: McpConnection;
    try {
      connection = await McpConnection.open(
        { url: url ?? '', ...(flags.bearer ? { bearer: flags.bearer } : {}) },
        mcpClientLimits(this.config),
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
