// The platform's MCP client against the MCP project's reference server: what it offers, calls mapped for a model,
// progress while a long tool runs, timeouts and aborts as tool errors, and the outbound guard.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { inspectMcpServer, McpConnection, McpUnreachable, type McpClientLimits } from './mcp-client.js';

const LIMITS: McpClientLimits = {
  connectTimeoutMs: 10_000,
  callTimeoutMs: 20_000,
  resultMaxBytes: 64 * 1024,
  allowLinkLocal: false,
};

/** A gate in front of the reference server that lets only `Authorization: Bearer <token>` through (401 otherwise). */
function bearerGate(upstream: string, token: string): Promise<{ url: string; server: Server }> {
  const target = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    if (incoming.headers.authorization !== `Bearer ${token}`) {
      outgoing.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
        server,
      }),
    ),
  );
}

describe('the MCP client against server-everything (int)', () => {
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

  it('reads the server, its tools with their schemas, its resources and prompts', async () => {
    const offer = await inspectMcpServer({ url: server.url, bearer: 'not-checked-by-this-server' }, LIMITS);
    expect(offer.server.name).toMatch(/everything/i);
    const echo = offer.tools.find((tool) => tool.name === 'echo');
    expect(echo).toMatchObject({
      description: 'Echoes back the input string',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      annotations: { readOnlyHint: true },
    });
    expect(offer.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['get-sum', 'get-tiny-image']),
    );
    expect(offer.resources.length).toBeGreaterThan(0);
    expect(offer.prompts.length).toBeGreaterThan(0);
  });

  it('reaches a server by host name, through the guarded name lookup', async () => {
    const byName = await inspectMcpServer({ url: server.url.replace('127.0.0.1', 'localhost') }, LIMITS);
    expect(byName.tools.length).toBeGreaterThan(5);
  });

  it('calls echo and get-sum, answering their text', async () => {
    await expect(connection.callTool('echo', { message: 'hi there' })).resolves.toEqual({
      ok: true,
      text: 'Echo: hi there',
      truncated: false,
    });
    await expect(connection.callTool('get-sum', { a: 2, b: 40 })).resolves.toMatchObject({
      ok: true,
      text: 'The sum of 2 and 40 is 42.',
    });
  });

  it('describes an image instead of inlining it', async () => {
    const outcome = await connection.callTool('get-tiny-image', {});
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.text).toMatch(/\[image: image\/png, \d+ bytes, not shown\]/);
    expect(outcome.text).not.toMatch(/iVBOR/);
  });

  it('passes progress notifications of a long-running tool to the callback', async () => {
    const seen: number[] = [];
    const outcome = await connection.callTool(
      'trigger-long-running-operation',
      { duration: 1, steps: 4 },
      { onProgress: ({ progress }) => seen.push(progress) },
    );
    expect(outcome).toMatchObject({ ok: true, text: expect.stringMatching(/completed/i) });
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('answers a timeout, an abort, a bad argument and an unknown tool as tool errors', async () => {
    const slow = { duration: 5, steps: 5 };
    const timedOut = await connection.callTool('trigger-long-running-operation', slow, { timeoutMs: 300 });
    expect(timedOut).toMatchObject({ ok: false, error: expect.stringMatching(/timed out/i) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = await connection.callTool('trigger-long-running-operation', slow, {
      signal: controller.signal,
    });
    expect(aborted).toEqual({ ok: false, error: 'the call of trigger-long-running-operation was cancelled' });
    await expect(connection.callTool('get-sum', { a: 'two' })).resolves.toMatchObject({ ok: false });
    await expect(connection.callTool('no-such-tool', {})).resolves.toMatchObject({ ok: false });
  });

  it('cuts a result past the size cap, saying so', async () => {
    const small = await McpConnection.open({ url: server.url }, { ...LIMITS, resultMaxBytes: 10 });
    try {
      const outcome = await small.callTool('echo', { message: 'a message longer than ten bytes' });
      expect(outcome).toEqual({
        ok: true,
        text: 'Echo: a me\n[result cut at 10 of 37 bytes]',
        truncated: true,
      });
    } finally {
      await small.close();
    }
  });

  it("ends a call whose answer is larger than a server's answers may be, as a tool error", async () => {
    const own = await McpConnection.open({ url: server.url }, LIMITS);
    try {
      const started = Date.now();
      const huge = await own.callTool('echo', { message: 'x'.repeat(1024 * 1024 + 10) });
      expect(huge).toEqual({ ok: false, error: 'the answer of echo is larger than 1048576 bytes' });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await own.close();
    }
  });

  it('sends the bearer token, and names a refusal without it', async () => {
    const gate = await bearerGate(server.url, 'gate-token-123');
    try {
      const withToken = await McpConnection.open({ url: gate.url, bearer: 'gate-token-123' }, LIMITS);
      try {
        await expect(withToken.callTool('echo', { message: 'through' })).resolves.toMatchObject({
          ok: true,
          text: 'Echo: through',
        });
      } finally {
        await withToken.close();
      }
      const wrong = McpConnection.open({ url: gate.url, bearer: 'wrong-token-456' }, LIMITS);
      await expect(wrong).rejects.toThrow(/401/);
      await expect(wrong).rejects.not.toThrow(/wrong-token-456/);
    } finally {
      gate.server.closeAllConnections();
      await new Promise((resolve) => gate.server.close(resolve));
    }
  });

  it('falls back to the older HTTP+SSE transport', async () => {
    const sse = await startEverythingServer('sse');
    try {
      const offer = await inspectMcpServer({ url: sse.url }, LIMITS);
      expect(offer.tools.map((tool) => tool.name)).toContain('echo');
      const connection = await McpConnection.open({ url: sse.url }, LIMITS);
      try {
        await expect(connection.callTool('echo', { message: 'old' })).resolves.toMatchObject({
          text: 'Echo: old',
        });
      } finally {
        await connection.close();
      }
    } finally {
      await sse.stop();
    }
  });

  it('refuses link-local and metadata addresses, and names an unreachable server', async () => {
    for (const url of [
      'http://169.254.169.254/mcp',
      'http://[fe80::1]/mcp',
      'http://metadata.google.internal/mcp',
      'http://[::ffff:169.254.169.254]/mcp',
    ])
      await expect(McpConnection.open({ url }, LIMITS)).rejects.toThrow(/link-local or cloud-metadata/);
    const closed = McpConnection.open({ url: 'http://127.0.0.1:9/mcp', bearer: 'sekrit-token' }, LIMITS);
    await expect(closed).rejects.toBeInstanceOf(McpUnreachable);
    await expect(closed).rejects.not.toThrow(/sekrit-token/);
  });
});
