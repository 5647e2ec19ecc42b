// The coding agents people run, pointed at the gateway with no account: the Codex CLI (`codex exec`, which speaks only
// the Responses API) and Claude Code (`claude -p`, the Messages API), one non-interactive prompt each on the offline
// model. Neither is a dependency of the project (their platform binaries weigh hundreds of megabytes): install them
// with `npm install -g @openai/codex @anthropic-ai/claude-code` (both come from the npm registry, binaries included),
// or name them in CODEX_BIN / CLAUDE_BIN. A missing one is skipped with the reason printed.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_KEY, startTestApi, tempDataDir, type TestApi } from './support/api.js';

const execFileAsync = promisify(execFile);

/** Runs a CLI with its stdin closed (codex exec reads a prompt from an open stdin until it ends). */
function run(
  file: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeout: number },
) {
  const running = execFileAsync(file, args, options);
  running.child.stdin?.end();
  return running;
}

/** The binary from its variable, else from PATH; null when absent. */
function locate(variable: string, name: string): string | null {
  const named = process.env[variable];
  if (named) return existsSync(named) ? named : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

const codex = locate('CODEX_BIN', 'codex');
const claude = locate('CLAUDE_BIN', 'claude');
for (const [name, path, install] of [
  ['Codex CLI', codex, '@openai/codex (or set CODEX_BIN)'],
  ['Claude Code', claude, '@anthropic-ai/claude-code (or set CLAUDE_BIN)'],
] as const)
  if (!path) console.warn(`skipped: the ${name} test needs its binary on PATH: npm install -g ${install}`);

describe('coding agents against the gateway (e2e, real CLIs)', () => {
  let api: TestApi;

  beforeAll(async () => {
    if (codex || claude) api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  // Asynchronous child processes: the api answers them from this very process.
  (codex ? it : it.skip)(
    'codex exec answers one prompt through POST /responses',
    async () => {
      const provider = `{ name = "platform", base_url = "${api.url}/api/compat/v1", env_key = "PLATFORM_KEY", wire_api = "responses" }`;
      const { stdout, stderr } = await run(
        codex!,
        [
          'exec',
          '--skip-git-repo-check',
          '-c',
          `model_providers.platform=${provider}`,
          '-c',
          'model_provider=platform',
          // Hosted web search has no counterpart on chat-completions upstreams: the gateway refuses it by name.
          '-c',
          'web_search=disabled',
          '-m',
          'offline-chat',
          'Say hello',
        ],
        {
          env: { ...process.env, CODEX_HOME: tempDataDir(), PLATFORM_KEY: ADMIN_KEY },
          cwd: tempDataDir(),
          timeout: 120_000,
        },
      );
      // The offline model calls the first tool Codex offers, then answers with its result: two requests, one turn.
      expect(`${stdout}\n${stderr}`).toContain('Offline model reply');
    },
    150_000,
  );

  (claude ? it : it.skip)(
    'claude -p answers one prompt through POST /messages',
    async () => {
      const { stdout } = await run(claude!, ['-p', 'Say hello', '--model', 'offline-chat', '--tools', ''], {
        env: {
          ...process.env,
          HOME: tempDataDir(),
          ANTHROPIC_BASE_URL: `${api.url}/api/compat`,
          ANTHROPIC_API_KEY: ADMIN_KEY,
          ANTHROPIC_DEFAULT_HAIKU_MODEL: 'offline-chat',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
        },
        cwd: tempDataDir(),
        timeout: 120_000,
      });
      expect(stdout).toContain('Offline model reply: you said "Say hello"');
    },
    150_000,
  );
});
