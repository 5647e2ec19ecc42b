// A small MCP server built on the MCP SDK's own server (streamable HTTP, stateless, on loopback) whose tool list
// changes during a call: its `unlock` tool logs a line at `info` and one at `debug`, adds the tool `secret` and says
// so (`notifications/tools/list_changed`), all on the call's own stream. server-everything changes no list during a
// call; this is the SDK's server, not an imitation of ours.
import { createServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface ChangingServer {
  /** Its MCP endpoint, on 127.0.0.1. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startChangingServer(): Promise<ChangingServer> {
  let unlocked = false;
  const server = (): McpServer => {
    const mcp = new McpServer(
      { name: 'changing', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true }, logging: {} } },
    );
    mcp.registerTool('unlock', { description: 'Adds the secret tool' }, async (extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'debug', data: 'looking for the key' },
      });
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', logger: 'vault', data: 'unlocking the secret tool' },
      });
      unlocked = true;
      await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      return { content: [{ type: 'text', text: 'unlocked' }] };
    });
    if (unlocked)
      mcp.registerTool('secret', { description: 'Tells the secret' }, () => ({
        content: [{ type: 'text', text: 'the secret is 42' }],
      }));
    return mcp;
  };
  const http: Server = createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const mcp = server();
      response.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      void mcp
        .connect(transport)
        .then(() =>
          transport.handleRequest(request, response, JSON.parse(Buffer.concat(chunks).toString('utf8'))),
        );
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
