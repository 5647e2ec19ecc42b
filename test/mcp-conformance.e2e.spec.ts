// The MCP project's conformance suite (`@modelcontextprotocol/conformance`, its server scenarios) against the
// platform's /mcp endpoint: the scenarios that apply to a server without the suite's own test tools (initialize, ping,
// tools-list, logging, DNS-rebinding protection). The suite sends no credential, so it reaches the endpoint through a
// small forwarder at the network edge that adds a user's key and changes nothing else (the Host header included:
// the forwarder's address is one the instance is configured to answer, MCP_ALLOWED_HOSTS).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { client, CORE, startTestApi, uniqueName, type TestApi } from './support/api.js';

const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'dns-rebinding-protection',
];

describe('the MCP conformance suite against /mcp (e2e)', () => {
  let api: TestApi;
  let edge: Server;
  let target = '';
  let key = '';

  beforeAll(async () => {
    edge = createServer((incoming, outgoing) => {
      const url = new URL(incoming.url ?? '/', target);
      const proxied = forward(
        url,
        { method: incoming.method, headers: { ...incoming.headers, authorization: `Bearer ${key}` } },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      proxied.on('error', () => outgoing.destroy());
      incoming.pipe(proxied);
    });
    await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
    const edgePort = (edge.address() as AddressInfo).port;
    api = await startTestApi({ MCP_ALLOWED_HOSTS: `127.0.0.1:${edgePort},localhost:${edgePort}` });
    target = api.url;
    const issued = await client(api.url).post<{ key: string }>(`${CORE}/api-keys`, {
      name: uniqueName('conformance'),
      owner: { email: `conformance-${Date.now()}@example.com` },
      agents: [],
    });
    expect(issued.status).toBe(201);
    key = issued.body.key;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => edge.close(resolve));
    await api.close();
  });

  // Run as a child while this process serves the api and the forwarder (a synchronous spawn would stall both).
  it.each(SCENARIOS)('passes %s', async (scenario) => {
    const port = (edge.address() as AddressInfo).port;
    const run = await promisify(execFile)(
      process.execPath,
      [
        'node_modules/@modelcontextprotocol/conformance/dist/index.js',
        'server',
        '--url',
        `http://localhost:${port}/mcp`,
        '--scenario',
        scenario,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    ).catch((failed: { code?: number; stdout?: string; stderr?: string }) => ({
      stdout: `exit ${failed.code}\n${failed.stdout ?? ''}`,
      stderr: failed.stderr ?? '',
    }));
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output).not.toMatch(/^exit /);
    const [, passed, of] = /Passed: (\d+)\/(\d+), 0 failed/.exec(output) ?? [];
    expect({ scenario, passed }).toEqual({ scenario, passed: of });
  });
});
