// A small MCP server built on the MCP SDK's own server (streamable HTTP, stateless, on loopback) whose tool list
// changes during a call: its `unlock` tool logs a line at `info` and one at `debug`, adds the tool `secret` and says
// so (`notifications/tools/list_changed`), all on the call's own stream. server-everything changes no list during a
// call; this is the SDK's server, not an imitation of ours. `startChangingResources` serves text resources a test
// changes, telling the sessions subscribed to them.
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

export interface ChangingResources extends ChangingServer {
  /** Changes (or adds) a resource's text and tells every session subscribed to it (`notifications/resources/updated`). */
  set(uri: string, text: string): Promise<void>;
  /** Sessions subscribed to the URI now. */
  subscribers(uri: string): number;
  /** Ends every session and its connections, as a server that restarts does: clients must initialize again. */
  forgetSessions(): Promise<void>;
}

/**
 * Text resources (`notes://…`) behind a stateful streamable HTTP endpoint (sessions, so a client's standalone GET
 * stream carries what the server sends unasked) that declares `resources.subscribe`, keeps each session's
 * subscriptions, and sends `notifications/resources/updated` to them when a resource changes.
 */
export async function startChangingResources(initial: Record<string, string>): Promise<ChangingResources> {
  const texts = new Map(Object.entries(initial));
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; subscribed: Set<string> }>();
  const { ResourceTemplate } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const types = await import('@modelcontextprotocol/sdk/types.js');
  const serverFor = (subscribed: Set<string>): McpServer => {
    const mcp = new McpServer(
      { name: 'changing-notes', version: '1.0.0' },
      { capabilities: { resources: { subscribe: true, listChanged: true } } },
    );
    mcp.registerResource(
      'note',
      new ResourceTemplate('notes://{name}', {
        list: () => ({
          resources: [...texts.keys()].map((uri) => ({ uri, name: uri.slice(8), mimeType: 'text/markdown' })),
        }),
      }),
      { mimeType: 'text/markdown' },
      (uri) => {
        const text = texts.get(uri.href);
        if (text === undefined) throw new types.McpError(-32002, `no resource ${uri.href}`);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
      },
    );
    mcp.server.setRequestHandler(types.SubscribeRequestSchema, ({ params }) => {
      subscribed.add(params.uri);
      return {};
    });
    mcp.server.setRequestHandler(types.UnsubscribeRequestSchema, ({ params }) => {
      subscribed.delete(params.uri);
      return {};
    });
    return mcp;
  };
  const http: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = chunks.length
        ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown)
        : undefined;
      const id = request.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (known) return void known.transport.handleRequest(request, response, body);
      if (request.method !== 'POST' || typeof id === 'string')
        return void response.writeHead(404).end(JSON.stringify({ error: 'no such session' }));
      const subscribed = new Set<string>();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (session) => void sessions.set(session, { transport, subscribed }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      void serverFor(subscribed)
        .connect(transport)
        .then(() => transport.handleRequest(request, response, body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  const forgetSessions = async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.all(open.map(({ transport }) => transport.close()));
    http.closeAllConnections();
  };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async set(uri, text) {
      texts.set(uri, text);
      for (const { transport, subscribed } of sessions.values())
        if (subscribed.has(uri))
          await transport.send({
            jsonrpc: '2.0',
            method: 'notifications/resources/updated',
            params: { uri },
          });
    },
    subscribers: (uri) => [...sessions.values()].filter(({ subscribed }) => subscribed.has(uri)).length,
    forgetSessions,
    stop: async () => {
      await forgetSessions();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
