// `cli mcp connect` (the built CLI, the platform's MCP client) against things no one here wrote: the MCP project's
// reference server (its tools listed, `echo` and `get-sum` called, a long-running tool's progress) and the MCP
// conformance suite's client scenarios that a tool-calling client without sampling answers (initialize, tools_call,
// sse-retry, elicitation defaults through `--accept-defaults`, and the OAuth ones through `--oauth`: metadata
// discovery, scopes, token-endpoint auth methods, pre-registration, the 2025-03-26 fallbacks), the suite appending its
// test server's URL to the command.
// Its auth servers approve without a person, so the CLI follows the authorization URL itself (--authorize-with-fetch).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startEverythingServer, type EverythingServer } from '#testing/mcp-everything';
import { tempDataDir } from './support/api.js';

const CLI = fileURLToPath(new URL('../dist/apps/cli/src/main.js', import.meta.url));
const CONFORMANCE = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], timeoutMs = 60_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [file, ...args],
      {
        env: { DATA_DIR: tempDataDir(), LOG_LEVEL: 'silent', PATH: process.env.PATH ?? '' },
        timeout: timeoutMs,
        cwd: tempDataDir(),
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const cli = (...args: string[]) => run(CLI, ['mcp', 'connect', ...args]);

/** Each run of the CLI boots its stores (about 3 s on two busy cores). */
const SLOW = 90_000;

describe('cli mcp connect (e2e)', () => {
  let everything: EverythingServer;

  beforeAll(async () => {
    everything = await startEverythingServer();
  }, SLOW);
  afterAll(async () => {
    await everything?.stop();
  });

  it(
    "prints server-everything's tools and its resources' and prompts' counts",
    async () => {
      const listed = await cli(everything.url);
      expect(listed.code).toBe(0);
      const lines = listed.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^server: \S*everything \S+$/);
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^tools: \d+$/),
          expect.stringMatching(/^ {2}echo +Echoes back the input string$/),
          expect.stringMatching(/^ {2}get-sum +Returns the sum of two numbers$/),
          expect.stringMatching(/^resources: [1-9]\d*$/),
          expect.stringMatching(/^prompts: [1-9]\d*$/),
        ]),
      );
    },
    SLOW,
  );

  it(
    'calls echo and get-sum, and shows a long-running tool’s progress on stderr',
    async () => {
      await expect(
        cli(everything.url, '--call', 'echo', '--args', '{"message":"hi"}'),
      ).resolves.toMatchObject({
        code: 0,
        stdout: 'Echo: hi\n',
      });
      await expect(
        cli(everything.url, '--call', 'get-sum', '--args', '{"a":2,"b":3}'),
      ).resolves.toMatchObject({
        code: 0,
        stdout: 'The sum of 2 and 3 is 5.\n',
      });
      const long = await cli(
        everything.url,
        '--call',
        'trigger-long-running-operation',
        '--args',
        '{"duration":1,"steps":3}',
      );
      expect(long.code).toBe(0);
      expect(long.stdout).toMatch(/completed/i);
      expect(long.stderr.match(/^progress: \d\/3$/gm)).toEqual([
        'progress: 1/3',
        'progress: 2/3',
        'progress: 3/3',
      ]);
    },
    SLOW,
  );

  it(
    'exits 1 with the tool error, the refused address or the unreachable server',
    async () => {
      const bad = await cli(everything.url, '--call', 'get-sum', '--args', '{"a":"two","b":3}');
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^error: tool error: .*Input validation error/m);
      const metadata = await cli('http://169.254.169.254/latest/meta-data');
      expect(metadata.code).toBe(1);
      expect(metadata.stderr).toMatch(/link-local or cloud-metadata/);
      const closed = await cli('http://127.0.0.1:1/mcp', '--bearer', 'cli-secret-token');
      expect(closed.code).toBe(1);
      expect(closed.stderr).toMatch(/could not be initialized/);
      expect(closed.stderr).not.toContain('cli-secret-token');
    },
    SLOW,
  );

  /** A value of the scenario's context (MCP_CONFORMANCE_CONTEXT), read by the shell the suite runs the command in. */
  const fromContext = (field: string) =>
    `"$('${process.execPath}' -p 'JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).${field}')"`;
  const OAUTH = `--oauth --authorize-with-fetch --call test-tool`;

  it.each([
    ['initialize', `--call add_numbers --args '{"a":5,"b":3}'`],
    ['tools_call', `--call add_numbers --args '{"a":5,"b":3}'`],
    ['sse-retry', `--call add_numbers --args '{"a":5,"b":3}'`],
    ['elicitation-sep1034-client-defaults', '--accept-defaults --call test_client_elicitation_defaults'],
    ...[
      'metadata-default',
      'metadata-var1',
      'metadata-var2',
      'metadata-var3',
      'scope-from-www-authenticate',
      'scope-from-scopes-supported',
      'scope-omitted-when-undefined',
      'scope-step-up',
      'scope-retry-limit',
      'token-endpoint-auth-basic',
      'token-endpoint-auth-post',
      'token-endpoint-auth-none',
      '2025-03-26-oauth-metadata-backcompat',
      '2025-03-26-oauth-endpoint-fallback',
    ].map((name) => [`auth/${name}`, OAUTH]),
    [
      'auth/pre-registration',
      `${OAUTH} --client-id ${fromContext('client_id')} --client-secret ${fromContext('client_secret')}`,
    ],
  ])(
    'passes the conformance suite’s client scenario %s',
    async (scenario, flags) => {
      const command = `"${process.execPath}" "${CLI}" mcp connect ${flags}`;
      const ran = await run(CONFORMANCE, ['client', '--command', command, '--scenario', scenario], 90_000);
      // eslint-disable-next-line no-control-regex
      const printed = `${ran.stdout}${ran.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(printed);
      expect({
        scenario,
        code: ran.code,
        summary: summary?.[0],
        overall: /OVERALL: PASSED/.test(printed),
      }).toEqual({
        scenario,
        code: 0,
        summary: `Passed: ${summary?.[2]}/${summary?.[2]}, 0 failed`,
        overall: true,
      });
    },
    SLOW,
  );
});
