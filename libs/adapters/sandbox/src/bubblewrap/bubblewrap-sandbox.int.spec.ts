// The bubblewrap adapter: the shared contract, then the hostile-code suite (each test one attempt to get out of the
// sandbox or take the host down; the figure is printed at the end). Skipped aloud where bubblewrap cannot run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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

  it('reports unavailable, saying why, where no cgroup can limit memory and processes', async () => {
    const reason = 'no usable cgroup for sandbox memory and process limits (none mounted)';
    const uncontained = new BubblewrapSandbox({
      root,
      limits: CONTRACT_LIMITS,
      detectCgroups: () => Promise.resolve({ reason }),
    });
    expect(await uncontained.availability()).toEqual({ available: false, reason });
    await expect(uncontained.create(freshSandboxId(), [])).rejects.toBeInstanceOf(SandboxUnavailableError);
  });
});

if (!availability.available) {
  const suite = 'CodeSandbox contract and hostile-code suite: bubblewrap';
  skipWithReason(suite, availability.reason);
  it(`${suite} did not run: ${availability.reason}`, () => expect(availability.reason).toBeTruthy());
} else {
  codeSandboxContract('bubblewrap', async () => sandbox);

  describe('BubblewrapSandbox availability probe', () => {
    it('opens a root made under a private umask, and its own private parent, to the sandboxes', async () => {
      // The api runs under umask 077: the folders it makes for sandbox roots, and a parent an earlier start made
      // with them, are 0700, out of reach of the sandboxes' uids.
      const parent = await mkdtemp(join(tmpdir(), 'sandbox-parent-'));
      const previous = process.umask(0o077);
      try {
        // A root under a private parent (an earlier start's folder): the parent is opened too…
        const first = new BubblewrapSandbox({ root: join(parent, 'root'), limits: CONTRACT_LIMITS });
        expect(await first.availability()).toEqual({ available: true });
        // …and every folder made on the way to a root.
        const deeper = new BubblewrapSandbox({ root: join(parent, 'made', 'root'), limits: CONTRACT_LIMITS });
        expect(await deeper.availability()).toEqual({ available: true });
        for (const dir of [parent, join(parent, 'root'), join(parent, 'made'), join(parent, 'made', 'root')])
          expect((await stat(dir)).mode & 0o777).toBe(0o711);
      } finally {
        process.umask(previous);
        await rm(parent, { recursive: true, force: true });
      }
    });

    it('runs its probe sandbox without holding the event loop (the first /health of the api asks for it)', async () => {
      // A setpriv that marks when it runs: timers firing while it runs prove the api's loop was free meanwhile
      // (a spawnSync held it for the whole run: no tick could see it running).
      const marks = await mkdtemp(join(tmpdir(), 'probe-marks-'));
      const slow = join(marks, 'setpriv');
      await writeFile(slow, `#!/bin/sh\ntouch ${marks}/started\nsleep 1\ntouch ${marks}/finished\n`, {
        mode: 0o755,
      });
      const probing = new BubblewrapSandbox({ root, limits: CONTRACT_LIMITS, setprivPath: slow });
      let ticksWhileRunning = 0;
      const ticker = setInterval(() => {
        if (existsSync(join(marks, 'started')) && !existsSync(join(marks, 'finished'))) ticksWhileRunning++;
      }, 10);
      try {
        expect(await probing.availability()).toEqual({ available: true });
      } finally {
        clearInterval(ticker);
        await rm(marks, { recursive: true, force: true });
      }
      expect(ticksWhileRunning).toBeGreaterThan(0);
    }, 30_000);
  });

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
      expect(
        spawnSync('grep', ['-c', root, '/proc/self/mountinfo'], { encoding: 'utf8' }).stdout.trim(),
      ).toBe('0');
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

    attempt('a file past maxFileMb is cut; a work dir cannot grow past diskMb', async () => {
      const id = await make();
      const big = await run('shell', 'head -c 20000000 /dev/zero > big.bin; echo $?', id);
      expect(big.stdout.trim()).not.toBe('0');
      expect((await sandbox.listFiles(id))[0]!.sizeBytes).toBeLessThanOrEqual(
        CONTRACT_LIMITS.maxFileMb * 1024 * 1024,
      );
      const many = await run('shell', 'for i in 1 2 3 4; do head -c 9000000 /dev/zero > f$i.bin; done', id);
      expect(many.stderr).toContain('No space left on device');
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

    // The limits below hold for the sandbox as a whole (its cgroup), not per process.
    const roomy = new BubblewrapSandbox({
      root,
      limits: { ...CONTRACT_LIMITS, memoryMb: 512, diskMb: 200, wallTimeoutMs: 20_000, workInodes: 5_000 },
    });
    const makeRoomy = async (): Promise<string> => {
      const id = freshSandboxId();
      await roomy.create(id, []);
      made.push(id);
      return id;
    };

    attempt(
      'four forks of 400 MB each are killed at the sandbox memory limit (512 MB), and the sandbox still works',
      async () => {
        const id = await makeRoomy();
        const result = await roomy.run(
          id,
          {
            language: 'python',
            code:
              'import os, time\nkids = []\nfor i in range(4):\n    pid = os.fork()\n    if pid == 0:\n' +
              '        block = b"\\x01" * (400 * 1024 * 1024)\n        print("held", i, flush=True)\n' +
              '        time.sleep(1)\n        print("still", i, flush=True)\n' +
              '        time.sleep(2)\n        os._exit(0)\n    kids.append(pid)\n' +
              'for pid in kids:\n    os.waitpid(pid, 0)\nprint("parent done", flush=True)',
          },
          never(),
        );
        // A fork prints "held" once its 400 MB are written, and "still" a second later if it is alive: the forks start
        // within milliseconds of each other, so two that are still there held 800 MB at once. ("held" alone is printed
        // by a fork whose sibling the kernel's OOM killer took first: one after the other, not at once.)
        const lines = result.stdout.split('\n');
        const held = lines.filter((line) => line.startsWith('held')).length;
        const still = lines.filter((line) => line.startsWith('still')).length;
        console.log(
          `four 400 MB forks under a 512 MB sandbox: ${held} held, ${still} alive a second later, killedBy ${result.killedBy}`,
        );
        expect(result.killedBy).toBe('memory');
        expect(still).toBeLessThanOrEqual(1);
        expect(await roomy.run(id, { language: 'shell', code: 'echo alive' }, never())).toMatchObject({
          exitCode: 0,
          stdout: 'alive\n',
        });
        await hostIsFine();
      },
      60_000,
    );

    attempt(
      'what the run writes to /tmp and /dev/shm counts against its memory',
      async () => {
        const small = new BubblewrapSandbox({
          root,
          limits: { ...CONTRACT_LIMITS, memoryMb: 128, diskMb: 200, maxFileMb: 150, wallTimeoutMs: 20_000 },
        });
        const id = freshSandboxId();
        await small.create(id, []);
        made.push(id);
        const result = await small.run(
          id,
          {
            language: 'shell',
            code: 'head -c 100000000 /dev/zero > /tmp/a; head -c 100000000 /dev/zero > /dev/shm/b; echo written',
          },
          never(),
        );
        expect(result.killedBy).toBe('memory');
      },
      60_000,
    );

    attempt('cannot make a nested user namespace (unshare -Ur, unshare(CLONE_NEWUSER))', async () => {
      const shell = await run('shell', 'unshare -Ur id -u; echo "rc=$?"');
      expect(shell.stdout).not.toMatch(/^0$/m);
      expect(shell.stdout).toMatch(/rc=[1-9]/);
      const py = await run(
        'python',
        'import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n' +
          'for flag in (0x10000000, 0x20000000, 0x40000000, 0x00020000):\n' +
          '    print(libc.unshare(flag), ctypes.get_errno())',
      );
      expect(py.stdout).toBe('-1 1\n-1 1\n-1 1\n-1 1\n');
    });

    attempt(
      'syscalls on the deny list fail with EPERM (ptrace, keyctl, add_key, kcmp); clone3 with ENOSYS',
      async () => {
        const result = await run(
          'python',
          'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nsyscall = libc.syscall\n' +
            'def call(nr, *args):\n    ctypes.set_errno(0)\n    r = syscall(nr, *args)\n    return (r, ctypes.get_errno())\n' +
            'print("ptrace", *call(101, 0, 0, 0, 0))\n' +
            'print("add_key", *call(248, b"user", b"k", b"v", 1, -2))\n' +
            'print("keyctl", *call(250, 0, -2, 0))\n' +
            'print("kcmp", *call(312, os.getpid(), os.getpid(), 0, 0, 0))\n' +
            'print("clone3", *call(435, 0, 0))\n' +
            'print("getpid", call(39)[0] == os.getpid())',
        );
        expect(result.stdout).toBe(
          'ptrace -1 1\nadd_key -1 1\nkeyctl -1 1\nkcmp -1 1\nclone3 -1 38\ngetpid True\n',
        );
        // Threads and subprocesses still start (clone without namespace flags is allowed).
        const threads = await run(
          'python',
          'import threading, subprocess\nt = threading.Thread(target=lambda: None)\nt.start(); t.join()\n' +
            'print(subprocess.run(["echo", "child"], capture_output=True, text=True).stdout.strip())',
        );
        expect(threads).toMatchObject({ exitCode: 0, stdout: 'child\n' });
      },
    );

    attempt(
      'an inode and link flood (50,000 dirs, 3,000 links, a 100 MB file) stops at the work dir limits',
      async () => {
        const id = await makeRoomy();
        const flood = await roomy.run(
          id,
          {
            language: 'python',
            code:
              'import os\ndirs = links = 0\ntry:\n    for i in range(50000):\n        os.mkdir(f"d{i}")\n        dirs += 1\n' +
              'except OSError as e:\n    print("dirs stopped:", e.strerror)\n' +
              'try:\n    for i in range(3000):\n        os.symlink("/etc/passwd", f"l{i}")\n        links += 1\n' +
              'except OSError as e:\n    print("links stopped:", e.strerror)\n' +
              'try:\n    with open("big.bin", "wb") as f:\n        for _ in range(100):\n            f.write(b"x" * 1048576)\n' +
              'except OSError as e:\n    print("file stopped:", e.strerror)\nprint("made", dirs, links)',
          },
          never(),
        );
        const [dirs, links] = /made (\d+) (\d+)/.exec(flood.stdout)!.slice(1).map(Number) as [number, number];
        expect(flood.stdout).toContain('dirs stopped: No space left on device');
        expect(dirs + links).toBeLessThan(5_000);
        // The listing is a child process with a deadline: measure how much it holds up the event loop.
        const delay = monitorEventLoopDelay({ resolution: 10 });
        delay.enable();
        const listed = Date.now();
        const files = await roomy.listFiles(id);
        const listMs = Date.now() - listed;
        delay.disable();
        const usage = spawnSync('df', ['-B1', '--output=used,iused', join(root, id, 'work')], {
          encoding: 'utf8',
        });
        console.log(
          `inode/link flood: ${dirs} dirs and ${links} links made before the work dir's inode limit; ` +
            `listing took ${listMs} ms, event loop max delay ${(delay.max / 1e6).toFixed(1)} ms; ` +
            `df: ${usage.stdout.trim().split('\n').pop()}`,
        );
        expect(files.reduce((sum, file) => sum + file.sizeBytes, 0)).toBeLessThanOrEqual(200 * 1024 * 1024);
      },
      60_000,
    );

    it('keeps the sandbox root unlistable by others', async () => {
      await mkdir(root, { recursive: true });
      expect(spawnSync('stat', ['-c', '%a', root], { encoding: 'utf8' }).stdout.trim()).toBe('711');
    });
  });
}
