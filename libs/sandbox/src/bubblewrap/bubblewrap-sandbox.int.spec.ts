// The bubblewrap adapter: the shared contract, then the hostile-code suite (each test one attempt to get out of the
// sandbox or take the host down; the figure is printed at the end). Skipped aloud where bubblewrap cannot run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipWithReason } from '#testing/fixtures';
import { CONTRACT_LIMITS, codeSandboxContract, freshSandboxId } from '../sandbox.contract.js';
import { SandboxUnavailableError, type RunResult } from '../sandbox.port.js';
import { BubblewrapSandbox, sandboxUid } from './bubblewrap-sandbox.js';

const SECRET_TOKEN = 'sk-test-secret-token-5f1c9a0e7b';
process.env.SECRET_TOKEN = SECRET_TOKEN;

const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-data-'));
await chmod(dataDir, 0o755);
const secretFile = join(dataDir, 'secret.txt');
await writeFile(secretFile, 'the platform secret', { mode: 0o644 });
const root = join(dataDir, 'sandboxes');
const sandbox = new BubblewrapSandbox({ root, limits: CONTRACT_LIMITS });
const availability = await sandbox.availability();
const never = (): AbortSignal => new AbortController().signal;

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('BubblewrapSandbox when bubblewrap cannot run', () => {
  it('reports unavailable and refuses to create or run (no unsandboxed fallback)', async () => {
    const broken = new BubblewrapSandbox({ root, limits: CONTRACT_LIMITS, bwrapPath: '/nonexistent/bwrap' });
    const said = await broken.availability();
    expect(said.available).toBe(false);
    await expect(broken.create(freshSandboxId(), [])).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(broken.run('anything', { language: 'shell', code: 'true' }, never())).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'code_execution_unavailable',
    });
  });
});

if (!availability.available) {
  const suite = 'CodeSandbox contract and hostile-code suite: bubblewrap';
  skipWithReason(suite, availability.reason);
  it(`${suite} did not run: ${availability.reason}`, () => expect(availability.reason).toBeTruthy());
} else {
  codeSandboxContract('bubblewrap', async () => sandbox);

  describe('BubblewrapSandbox hostile-code suite', () => {
    let attempts = 0;
    let contained = 0;
    let listener: Server;
    let port = 0;
    let connections = 0;
    const made: string[] = [];

    /** One hostile attempt: counted, and contained when its checks pass. */
    const attempt = (name: string, body: () => Promise<void>, timeoutMs?: number): void => {
      it(
        name,
        async () => {
          attempts += 1;
          await body();
          contained += 1;
        },
        timeoutMs,
      );
    };
    const make = async (): Promise<string> => {
      const id = freshSandboxId();
      await sandbox.create(id, [{ path: 'skill/SKILL.md', bytes: new TextEncoder().encode('# skill') }]);
      made.push(id);
      return id;
    };
    const run = async (language: 'python' | 'shell', code: string, id?: string): Promise<RunResult> =>
      sandbox.run(id ?? (await make()), { language, code }, never());
    /** After an attack, the host still starts processes and a new sandbox still runs. */
    const hostIsFine = async (): Promise<void> => {
      expect(spawnSync('/bin/echo', ['host alive'], { encoding: 'utf8' }).stdout).toBe('host alive\n');
      expect(await run('shell', 'echo alive')).toMatchObject({ exitCode: 0, stdout: 'alive\n' });
    };

    beforeAll(async () => {
      listener = createServer((socket) => {
        connections += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      port = (listener.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const id of made) await sandbox.destroy(id);
      console.log(`hostile-code suite: ${attempts} attempts, ${contained} contained`);
    });

    attempt('cannot reach the internet (python socket to 1.1.1.1:80)', async () => {
      const result = await run(
        'python',
        'import socket\ns = socket.create_connection(("1.1.1.1", 80), timeout=2)\nprint("CONNECTED")',
      );
      expect(result.stdout).not.toContain('CONNECTED');
      expect(result.exitCode).not.toBe(0);
    });

    attempt('cannot reach a port the host listens on at 127.0.0.1', async () => {
      const result = await run(
        'python',
        `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\nprint("CONNECTED")`,
      );
      expect(result.stdout).not.toContain('CONNECTED');
      expect(result.exitCode).not.toBe(0);
      expect(connections).toBe(0);
    });

    attempt('has no network interface but a down loopback', async () => {
      const result = await run('shell', 'cat /proc/net/dev');
      const interfaces = result.stdout
        .split('\n')
        .slice(2)
        .filter(Boolean)
        .map((l) => l.split(':')[0]!.trim());
      expect(interfaces).toEqual(['lo']);
    });

    attempt("cannot read the platform's data dir", async () => {
      const result = await run('shell', `cat ${secretFile}; ls ${dataDir}; ls /`);
      expect(result.stdout).not.toContain('the platform secret');
      expect(result.stderr).toContain('No such file');
      const top = result.stdout.split('\n').filter(Boolean);
      expect(top).toEqual(expect.arrayContaining(['usr', 'work', 'skills', 'tmp']));
      for (const hidden of ['root', 'home', 'var', 'opt', 'mnt', 'srv', 'run', 'boot'])
        expect(top).not.toContain(hidden);
    });

    attempt('cannot read /root or the host /proc', async () => {
      const result = await run('shell', 'ls -a /root; cat /root/.bashrc; ls /proc | grep -c "^[0-9]"');
      // Only the sandbox's own processes: bwrap's init, sh, ls, grep.
      expect(Number(result.stdout.trim())).toBeLessThanOrEqual(5);
      expect(result.stderr).toMatch(/No such file/);
    });

    attempt('sees none of the platform environment (env)', async () => {
      const result = await run('shell', 'env; cat /proc/1/environ');
      expect(result.stdout).not.toContain(SECRET_TOKEN);
      expect(result.stdout).not.toContain('SECRET_TOKEN');
      const names = result.stdout
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => line.split('=')[0]);
      for (const name of names)
        expect(['PATH', 'HOME', 'LANG', 'PWD', 'SHLVL', '_', 'OLDPWD']).toContain(name);
      const py = await run('python', 'import os\nprint(sorted(os.environ))');
      expect(py.stdout).not.toContain('SECRET_TOKEN');
    });

    attempt('runs as a uid of its own, not root, with no capabilities', async () => {
      const id = await make();
      const result = await run('shell', 'id -u; grep CapEff /proc/self/status', id);
      expect(result.stdout).toBe(`${sandboxUid(id)}\nCapEff:\t0000000000000000\n`);
    });

    attempt('cannot write outside /work (/usr, /, /skills, /etc)', async () => {
      const result = await run(
        'shell',
        'for f in /usr/evil /evil /skills/evil /skills/skill/SKILL.md /etc/evil /bin/evil /dev/evil /proc/evil; do ' +
          '(echo x > "$f") 2>/dev/null && echo "WROTE $f"; done; echo ok > /work/fine && echo done',
      );
      expect(result.stdout).toBe('done\n');
      expect(existsSync('/usr/evil') || existsSync('/evil')).toBe(false);
    });

    attempt(
      'a shell fork bomb is contained and the host can still start processes',
      async () => {
        const bomb = await run('shell', "exec /bin/bash -c ':(){ :|:& };:'");
        expect(bomb.exitCode === 0 && bomb.stdout.includes('alive')).toBe(false);
        const named = await run('shell', 'bomb(){ bomb|bomb& }; bomb; sleep 10');
        expect(named.timedOut || named.exitCode !== 0).toBe(true);
        await hostIsFine();
      },
      30_000,
    );

    attempt(
      'a python fork loop is contained',
      async () => {
        const result = await run(
          'python',
          'import os, time\nn = 0\nwhile True:\n    try:\n        pid = os.fork()\n    except OSError:\n' +
            '        print("fork refused after", n, flush=True)\n        time.sleep(60)\n' +
            '    if pid == 0:\n        time.sleep(60)\n        os._exit(0)\n    n += 1',
        );
        expect(result.timedOut).toBe(true);
        const count = Number(/fork refused after (\d+)/.exec(result.stdout)?.[1]);
        expect(count).toBeLessThan(CONTRACT_LIMITS.maxProcesses);
        await hostIsFine();
      },
      30_000,
    );

    attempt('a memory bomb (10 GiB) is contained', async () => {
      const result = await run('python', 'x = bytearray(10 * 1024 ** 3)\nprint("ALLOCATED")');
      expect(result.stdout).not.toContain('ALLOCATED');
      expect(result.killedBy).toBe('memory');
      await hostIsFine();
    });

    attempt('an infinite loop is ended by the CPU or wall limit', async () => {
      const result = await run('python', 'while True: pass');
      expect(['cpu', 'timeout']).toContain(result.killedBy);
      expect(result.exitCode).toBeNull();
    });

    attempt('100 MB of output is truncated', async () => {
      const result = await run(
        'python',
        'import sys\nfor _ in range(100): sys.stdout.write("y" * (1024 * 1024))',
      );
      expect(result.truncated).toBe(true);
      expect(result.stdout.length).toBeLessThanOrEqual(CONTRACT_LIMITS.outputBytes);
    });

    attempt('sleeping past the wall timeout is killed (timedOut)', async () => {
      const result = await run('python', 'import time\ntime.sleep(60)');
      expect(result).toMatchObject({ timedOut: true, killedBy: 'timeout' });
      await hostIsFine();
    });

    attempt('a background process does not outlive its run', async () => {
      const id = await make();
      await run('shell', '(sleep 2; echo late > late.txt) & echo started', id);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await sandbox.listFiles(id)).toEqual([]);
    });

    attempt('a file past maxFileMb is cut; a work dir past diskMb loses what the run wrote', async () => {
      const id = await make();
      const big = await run('shell', 'head -c 20000000 /dev/zero > big.bin; echo $?', id);
      expect(big.stdout.trim()).not.toBe('0');
      expect((await sandbox.listFiles(id))[0]!.sizeBytes).toBeLessThanOrEqual(
        CONTRACT_LIMITS.maxFileMb * 1024 * 1024,
      );
      const many = await run('shell', 'for i in 1 2 3 4; do head -c 9000000 /dev/zero > f$i.bin; done', id);
      expect(many.stderr).toContain('quota');
      const total = (await sandbox.listFiles(id)).reduce((sum, file) => sum + file.sizeBytes, 0);
      expect(total).toBeLessThanOrEqual(CONTRACT_LIMITS.diskMb * 1024 * 1024);
    });

    attempt('a link planted in /work does not let the host read outside it', async () => {
      const id = await make();
      await run('shell', `ln -s ${secretFile} leak.txt; ln -s / rootlink; mkfifo pipe`, id);
      expect(await sandbox.readFile(id, 'leak.txt')).toBeNull();
      expect(await sandbox.readFile(id, 'rootlink/etc/passwd')).toBeNull();
      expect(await sandbox.readFile(id, 'pipe')).toBeNull();
      expect(await sandbox.listFiles(id)).toEqual([]);
    });

    attempt('destroy removes the directory, its files and skills', async () => {
      const id = await make();
      await run('shell', 'mkdir -p d/e; echo x > d/e/f; chmod 000 d/e', id);
      await sandbox.destroy(id);
      expect(existsSync(join(root, id))).toBe(false);
    });

    it('keeps the sandbox root unlistable by others', async () => {
      await mkdir(root, { recursive: true });
      expect(spawnSync('stat', ['-c', '%a', root], { encoding: 'utf8' }).stdout.trim()).toBe('711');
    });
  });
}
