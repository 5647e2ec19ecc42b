// POST /mcp (streamable HTTP, stateless): the platform as an MCP server (platform-mcp-server.ts) for a user's API key,
// sent as `Authorization: Bearer <key>` or `x-api-key`. Each request gets a server bound to its caller; answers are
// JSON (no session, no stream to resume). GET and DELETE have nothing to serve without a session: 405, as the
// transport specification allows. DNS-rebinding protection: only known Host headers (the public URL's, the loopback
// names at the port the request came in on, MCP_ALLOWED_HOSTS) and a browser Origin only of those.
import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AcceptsBearer, CurrentCaller, type Caller } from '#access';
import { ConversationTurns } from '#conversations';
import { ApiRoute } from '#http';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { PLATFORM_VERSION } from '../version.js';

/** The MCP SDK and the server built on it: loaded by the first MCP request, not at every start. */
const mcpServing = () => import('./platform-mcp-server.js');

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

@AcceptsBearer()
@Controller('mcp')
export class McpController {
  constructor(
    private readonly queries: QueryBus,
    private readonly turns: ConversationTurns,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @ApiRoute({
    tag: 'MCP',
    summary: 'The platform as an MCP server (streamable HTTP)',
    description:
      'JSON-RPC as the Model Context Protocol defines it: tools `list_agents`, `ask_agent` (a conversation turn with ' +
      'Knowledge, memory rules and citations) and `search_knowledge`; each Ready document of the Agents the key may ' +
      'use as a resource. Stateless: every request answers in JSON, without a session. A Host header the instance ' +
      'does not know, or a foreign browser Origin, is refused (403, DNS-rebinding protection).',
    response: { status: 200, description: 'The JSON-RPC response' },
    errors: [401, 403],
  })
  @Post()
  async post(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    const { serveMcpRequest } = await mcpServing();
    reply.hijack();
    await serveMcpRequest(
      { queries: this.queries, turns: this.turns, version: PLATFORM_VERSION },
      caller,
      this.guard(request.raw.socket.localPort),
      { request: request.raw, response: reply.raw, body: request.body },
    );
  }

  @ApiRoute({
    tag: 'MCP',
    summary: 'No stream to open: the MCP endpoint is stateless (405)',
    response: { status: 405, description: 'Method not allowed' },
    errors: [401, 403],
  })
  @Get()
  stream(@Res() reply: FastifyReply): void {
    notAllowed(reply);
  }

  @ApiRoute({
    tag: 'MCP',
    summary: 'No session to end: the MCP endpoint is stateless (405)',
    response: { status: 405, description: 'Method not allowed' },
    errors: [401, 403],
  })
  @Delete()
  end(@Res() reply: FastifyReply): void {
    notAllowed(reply);
  }

  /** The Host headers answered, and the browser origins: the pages those hosts serve, and the public URL's. */
  private guard(port: number | undefined): { allowedHosts: string[]; allowedOrigins: string[] } {
    const loopback = port ? LOOPBACK.map((name) => `${name}:${port}`) : [];
    const publicUrl = new URL(this.config.people.publicUrl);
    const allowedHosts = [...new Set([publicUrl.host, ...loopback, ...this.config.mcpAllowedHosts])];
    const allowedOrigins = [
      publicUrl.origin,
      ...allowedHosts.flatMap((host) => [`http://${host}`, `https://${host}`]),
    ];
    return { allowedHosts, allowedOrigins: [...new Set(allowedOrigins)] };
  }
}

function notAllowed(reply: FastifyReply): void {
  void reply
    .code(405)
    .header('allow', 'POST')
    .send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless' },
      id: null,
    });
}
