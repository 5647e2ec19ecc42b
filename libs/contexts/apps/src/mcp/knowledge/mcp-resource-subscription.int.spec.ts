// The watching side of the platform's MCP client against the MCP project's reference server: it declares
// `resources.subscribe`, takes a subscription, and — once its `toggle-subscriber-updates` tool starts them — sends
// `notifications/resources/updated` for the subscribed resource, which the connection hands on.
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { waitUntil } from '#testing/fixtures';
import { McpConnection, type McpClientLimits } from '../mcp-client.js';

const LIMITS: McpClientLimits = {
  connectTimeoutMs: 10_000,
  callTimeoutMs: 20_000,
  resultMaxBytes: 64 * 1024,
  allowLinkLocal: false,
};
const URI = 'demo://resource/static/document/architecture.md';

describe('resource subscriptions against server-everything (int)', () => {
  let server: EverythingServer;
  let connection: McpConnection;

  beforeAll(async () => {
    server = await startEverythingServer();
    connection = await McpConnection.open({ url: server.url }, LIMITS);
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  it('subscribes to a resource and hears its updates', async () => {
    expect(connection.subscribable).toBe(true);
    const updated: (string | null)[] = [];
    const troubles: string[] = [];
    await connection.watchResources(
      (uri) => updated.push(uri),
      (trouble) => troubles.push(trouble),
    );
    await connection.subscription(URI, true);
    expect(await connection.callTool('toggle-subscriber-updates', {})).toMatchObject({ ok: true });
    await waitUntil(() => updated.includes(URI), 20_000);
    expect(await connection.alive()).toBe(true);

    await connection.subscription(URI, false);
    expect(await connection.callTool('toggle-subscriber-updates', {})).toMatchObject({ ok: true });
    expect(troubles).toEqual([]);
  }, 60_000);
});
