// One contract for every CodeSandbox adapter: the embedded bubblewrap adapter now, the container adapter later.
// The adapter under test is available (the spec skips aloud otherwise) and configured with small limits:
// wall timeout 3 s, 2 CPU seconds, 256 MB, 32 processes, 10 MB per file, 20 MB of disk, 64 KiB of output.
import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '#kernel';
import type { CodeSandbox, RunResult } from './sandbox.port.js';

export const CONTRACT_LIMITS = {
  cpuSeconds: 2,
  memoryMb: 256,
  diskMb: 20,
  maxProcesses: 32,
  maxFileMb: 10,
  outputBytes: 64 * 1024,
  wallTimeoutMs: 3_000,
  idleTimeoutMs: 60_000,
} as const;

export const freshSandboxId = (): string => `sbx-${randomUUID().replace(/-/g, '').slice(0, 16)}`;

const never = (): AbortSignal => new AbortController().signal;
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

export function codeSandboxContract(name: string, open: () => Promise<CodeSandbox>): void {
  describe(`CodeSandbox contract: ${name}`, () => {
    let sandbox: CodeSandbox;
    const made: string[] = [];
    const make = async (files: { path: string; bytes: Uint8Array }[] = []): Promise<string> => {
      const id = freshSandboxId();
      await sandbox.create(id, files);
      made.push(id);
      return id;
    };
    const run = (id: string, language: 'python' | 'shell', code: string): Promise<RunResult> =>
      sandbox.run(id, { language, code }, never());

    beforeAll(async () => {
      sandbox = await open();
    });
    afterAll(async () => {
      for (const id of made) await sandbox.destroy(id);
    });

    it('is available', async () => {
      expect(await sandbox.availability()).toEqual({ available: true });
    });

    it('runs python and shell, with stdout, stderr and the exit code', async () => {
      const id = await make();
      const py = await run(
        id,
        'python',
        'import sys\nprint("hello")\nprint("oops", file=sys.stderr)\nsys.exit(3)',
      );
      expect(py).toMatchObject({
        exitCode: 3,
        signal: null,
        stdout: 'hello\n',
        stderr: 'oops\n',
        timedOut: false,
      });
      expect(py).toMatchObject({ truncated: false, killedBy: null });
      expect(py.durationMs).toBeGreaterThanOrEqual(0);
      const sh = await run(id, 'shell', 'echo "$HOME" "$PWD"; echo err >&2');
      expect(sh).toMatchObject({ exitCode: 0, stdout: '/work /work\n', stderr: 'err\n' });
    });

    it('keeps the files one run writes for the next run, and lists and reads them', async () => {
      const id = await make();
      const first = await run(
        id,
        'python',
        'import os\nos.makedirs("out", exist_ok=True)\nopen("out/a.txt","w").write("data 1")',
      );
      expect(first.exitCode).toBe(0);
      const second = await run(id, 'shell', 'cat out/a.txt; echo more > b.txt');
      expect(second).toMatchObject({ exitCode: 0, stdout: 'data 1' });
      expect(await sandbox.listFiles(id)).toEqual([
        { path: 'b.txt', sizeBytes: 5 },
        { path: 'out/a.txt', sizeBytes: 6 },
      ]);
      expect(new TextDecoder().decode((await sandbox.readFile(id, 'out/a.txt'))!)).toBe('data 1');
      expect(await sandbox.readFile(id, 'missing.txt')).toBeNull();
      expect(await sandbox.readFile(id, '../skills/x')).toBeNull();
      expect(await sandbox.readFile(id, '/etc/passwd')).toBeNull();
      expect(await sandbox.readFile(id, 'out')).toBeNull();
    });

    it('places the skill files read-only under /skills', async () => {
      const id = await make([
        { path: 'pdf/SKILL.md', bytes: text('# PDF skill') },
        { path: 'pdf/scripts/run.py', bytes: text('print(6 * 7)') },
      ]);
      const read = await run(
        id,
        'shell',
        'cat /skills/pdf/SKILL.md; echo; python3 /skills/pdf/scripts/run.py',
      );
      expect(read).toMatchObject({ exitCode: 0, stdout: '# PDF skill\n42\n' });
      const write = await run(
        id,
        'shell',
        'echo x > /skills/pdf/SKILL.md || echo refused; rm /skills/pdf/SKILL.md || echo kept',
      );
      expect(write.stdout).toBe('refused\nkept\n');
      expect(await sandbox.listFiles(id)).toEqual([]);
    });

    it('replaces the skill files between runs: a run sees the old Skills or the new ones, never neither', async () => {
      const id = await make([{ path: 'old/SKILL.md', bytes: text('old') }]);
      // A run under way when the Skills change, the change, and a run right after it.
      const during = run(id, 'shell', 'sleep 0.4; ls /skills; cat /skills/old/SKILL.md');
      const replaced = sandbox.replaceSkills(id, [
        { path: 'new/SKILL.md', bytes: text('new') },
        { path: 'new/factors.csv', bytes: text('km,mi,0.621') },
      ]);
      const after = run(id, 'shell', 'ls /skills; cat /skills/new/factors.csv');
      await replaced;
      expect(await during).toMatchObject({ exitCode: 0, stdout: 'old\nold' });
      expect(await after).toMatchObject({ exitCode: 0, stdout: 'new\nkm,mi,0.621' });
      await expect(sandbox.replaceSkills(id, [{ path: '../x', bytes: text('x') }])).rejects.toBeInstanceOf(
        ValidationError,
      );
    });

    it('refuses skill paths leading outside, malformed ids and unknown sandboxes', async () => {
      await expect(
        sandbox.create(freshSandboxId(), [{ path: '../x', bytes: text('x') }]),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(sandbox.create('../etc', [])).rejects.toBeInstanceOf(ValidationError);
      await expect(run('no-such-sandbox-here', 'shell', 'true')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('ends a run at the wall timeout (timedOut)', async () => {
      const id = await make();
      const started = Date.now();
      const result = await run(id, 'shell', 'sleep 30');
      expect(result).toMatchObject({ timedOut: true, killedBy: 'timeout', exitCode: null });
      expect(Date.now() - started).toBeLessThan(CONTRACT_LIMITS.wallTimeoutMs + 4_000);
    });

    it('truncates output past the cap and kills the run', async () => {
      const id = await make();
      const result = await run(id, 'python', 'import sys\nwhile True: sys.stdout.write("x" * 65536)');
      expect(result).toMatchObject({ truncated: true, killedBy: 'output' });
      expect(result.stdout.length + result.stderr.length).toBeLessThanOrEqual(CONTRACT_LIMITS.outputBytes);
    });

    it('kills the run when the caller aborts', async () => {
      const id = await make();
      const abort = new AbortController();
      // Late enough that a loaded machine has started the run (cgroup, bwrap, seccomp) and printed; well before the
      // wall timeout, so only the abort can end it.
      setTimeout(() => abort.abort(), 1_500);
      const result = await sandbox.run(
        id,
        { language: 'shell', code: 'echo started; sleep 30' },
        abort.signal,
      );
      expect(result).toMatchObject({ stdout: 'started\n', timedOut: false, exitCode: null });
      expect(result.durationMs).toBeLessThan(CONTRACT_LIMITS.wallTimeoutMs);
    });

    it('destroy removes the sandbox; creating again starts empty', async () => {
      const id = await make();
      await run(id, 'shell', 'echo x > kept.txt');
      await sandbox.destroy(id);
      await expect(sandbox.listFiles(id)).rejects.toBeInstanceOf(NotFoundError);
      await sandbox.destroy(id);
      await sandbox.create(id, []);
      expect(await sandbox.listFiles(id)).toEqual([]);
    });
  });
}
