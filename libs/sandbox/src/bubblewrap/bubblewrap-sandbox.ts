// The embedded code sandbox: each run is a bubblewrap container started as a uid of the sandbox's own, with no
// network (not even loopback), no view of the host but /usr and the few paths interpreters need, a clean environment,
// and per-process resource limits set by prlimit in front of the interpreter.
//
// Layout: `<root>/<sandboxId>/work` (owned by the sandbox's uid, 0700, bound read-write at /work) and
// `<root>/<sandboxId>/skills` (root-owned, files 0444, bound read-only at /skills). The sandbox's uid is
// 200000 + (the first 32 bits of SHA-256(id) mod 50000): not root, so RLIMIT_NPROC holds, and two sandboxes share a
// uid only on a hash collision. bwrap runs unprivileged (user namespace) as that uid, so it reaches the work and skills
// dirs by path: `<root>` and its ancestors must be searchable by others (the adapter makes `<root>` 0711 and the
// availability probe binds it, so a root it cannot reach reads as unavailable with the reason).
//
// Disk: RLIMIT_FSIZE caps each file (`maxFileMb`); after each run the work dir is measured and, when over `diskMb`,
// the files this run wrote or changed are deleted, largest first, until it fits, and stderr says so. A run can thus
// briefly hold more than `diskMb` (at most what it writes within its wall timeout); there is no file-system quota here
// (no XFS project quota, no loop device). /tmp and /dev/shm are private tmpfs of `diskMb` each; / and /dev are read-only.
//
// Memory: RLIMIT_AS caps each process, not the sandbox as a whole (`maxProcesses` × `memoryMb` at worst): no cgroup.
// Over 300 lines on purpose: the one place that builds the bubblewrap command line and its limits and reads runs
// back, so every isolation flag is reviewed together.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as fsConstants, existsSync, lstatSync, readlinkSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, open, readdir, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { NotFoundError, ValidationError } from '#kernel';
import {
  type CodeSandbox,
  type ListedSandboxFile,
  type RunRequest,
  type RunResult,
  type SandboxAvailability,
  type SandboxFile,
  type SandboxLimits,
  SandboxUnavailableError,
} from '../sandbox.port.js';
import { assertRunRequest, assertSandboxId, safeSegments, SandboxSessions } from '../sandbox-sessions.js';

export interface BubblewrapSandboxOptions {
  /** The directory holding one directory per sandbox, e.g. `DATA_DIR/sandboxes`. */
  readonly root: string;
  readonly limits: SandboxLimits;
  /** Defaults: `bwrap`, `setpriv`, `/usr/bin/prlimit`, `/usr/bin/python3`, `/bin/sh`. */
  readonly bwrapPath?: string;
  readonly setprivPath?: string;
  readonly prlimitPath?: string;
  readonly pythonPath?: string;
  readonly shellPath?: string;
}

const MB = 1024 * 1024;
const UID_BASE = 200_000;
const UID_SPAN = 50_000;
const PROBE_UID = UID_BASE + UID_SPAN;
const OPEN_FILES = 256;
/** After a kill, how long the pipes may take to close before they are dropped. */
const KILL_GRACE_MS = 2_000;
const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The sandbox's own uid (and gid). */
export const sandboxUid = (sandboxId: string): number =>
  UID_BASE + (createHash('sha256').update(sandboxId).digest().readUInt32BE(0) % UID_SPAN);

const signalName = (n: number): string | null =>
  Object.entries(osConstants.signals).find(([, value]) => value === n)?.[0] ?? null;

interface FileState {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/** Regular files under `dir` by relative path; links and special files are skipped, never followed. */
async function walk(dir: string): Promise<Map<string, FileState>> {
  const found = new Map<string, FileState>();
  const visit = async (abs: string, rel: string): Promise<void> => {
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const childAbs = join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await visit(childAbs, childRel);
      else if (entry.isFile()) {
        const stat = await lstat(childAbs).catch(() => null);
        if (stat?.isFile()) found.set(childRel, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino });
      }
    }
  };
  await visit(dir, '');
  return found;
}

export class BubblewrapSandbox implements CodeSandbox {
  private readonly root: string;
  private readonly limits: SandboxLimits;
  private readonly bwrap: string;
  private readonly setpriv: string;
  private readonly prlimit: string;
  private readonly python: string;
  private readonly shell: string;
  private probed: Promise<SandboxAvailability> | undefined;
  private readonly sessions: SandboxSessions;
  /** Use, one-at-a-time runs (the disk check compares before and after) and the kills of runs under way. */

  constructor(options: BubblewrapSandboxOptions) {
    this.root = options.root;
    this.limits = options.limits;
    this.sessions = new SandboxSessions(options.limits.idleTimeoutMs);
    this.bwrap = options.bwrapPath ?? 'bwrap';
    this.setpriv = options.setprivPath ?? 'setpriv';
    this.prlimit = options.prlimitPath ?? '/usr/bin/prlimit';
    this.python = options.pythonPath ?? '/usr/bin/python3';
    this.shell = options.shellPath ?? '/bin/sh';
  }

  availability(): Promise<SandboxAvailability> {
    this.probed ??= this.probe();
    return this.probed;
  }

  /** Sandboxes of this process unused for longer than `idleTimeoutMs`, for their owner to destroy. */
  idleSandboxes(now = Date.now()): string[] {
    return this.sessions.idle(now);
  }

  async create(sandboxId: string, files: readonly SandboxFile[]): Promise<void> {
    assertSandboxId(sandboxId);
    const placed = files.map((file) => {
      const segments = safeSegments(file.path);
      if (!segments)
        throw new ValidationError('invalid_sandbox_path', `Not a relative path: ${file.path}`, 'path');
      return { segments, bytes: file.bytes };
    });
    await this.requireAvailable();
    await this.destroy(sandboxId);
    const dir = this.dirOf(sandboxId);
    const uid = sandboxUid(sandboxId);
    await mkdir(join(dir, 'work'), { recursive: true, mode: 0o700 });
    await chmod(dir, 0o711);
    await chown(join(dir, 'work'), uid, uid);
    await chmod(join(dir, 'work'), 0o700);
    const skills = join(dir, 'skills');
    await mkdir(skills, { mode: 0o755 });
    for (const { segments, bytes } of placed) {
      const target = join(skills, ...segments);
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      await writeFile(target, bytes, { mode: 0o444, flag: 'wx' }).catch(
        async (error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
          throw new ValidationError('duplicate_sandbox_path', `Two files at ${segments.join('/')}`, 'path');
        },
      );
    }
    this.sessions.touch(sandboxId);
  }

  async replaceSkills(sandboxId: string, files: readonly SandboxFile[]): Promise<void> {
    assertSandboxId(sandboxId);
    await this.requireAvailable();
    const dir = this.dirOf(sandboxId);
    const skills = join(dir, 'skills');
    await rm(skills, { recursive: true, force: true });
    await mkdir(skills, { mode: 0o755 });
    for (const file of files) {
      const segments = safeSegments(file.path);
      if (!segments)
        throw new ValidationError('invalid_sandbox_path', `Not a relative path: ${file.path}`, 'path');
      const target = join(skills, ...segments);
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      await writeFile(target, file.bytes, { mode: 0o444 });
    }
  }

  async run(sandboxId: string, request: RunRequest, signal: AbortSignal): Promise<RunResult> {
    assertSandboxId(sandboxId);
    assertRunRequest(request);
    await this.requireAvailable();
    if (!existsSync(join(this.dirOf(sandboxId), 'work'))) throw new NotFoundError('Sandbox', sandboxId);
    return this.sessions.serialize(sandboxId, () => this.runNow(sandboxId, request, signal));
  }

  async listFiles(sandboxId: string): Promise<ListedSandboxFile[]> {
    assertSandboxId(sandboxId);
    const work = join(this.dirOf(sandboxId), 'work');
    if (!existsSync(work)) throw new NotFoundError('Sandbox', sandboxId);
    const files = await walk(work);
    return [...files]
      .map(([path, state]) => ({ path, sizeBytes: state.size }))
      .sort((a, b) => a.path.localeCompare(b.path));
  }

  async readFile(sandboxId: string, path: string): Promise<Uint8Array | null> {
    assertSandboxId(sandboxId);
    const work = join(this.dirOf(sandboxId), 'work');
    if (!existsSync(work)) throw new NotFoundError('Sandbox', sandboxId);
    const segments = safeSegments(path);
    if (!segments) return null;
    const target = join(work, ...segments);
    // The sandbox may have left links: the resolved path must still be inside the work dir, and a regular file.
    const [realWork, realTarget] = await Promise.all([realpath(work), realpath(target).catch(() => null)]);
    if (!realTarget || realTarget !== join(realWork, ...segments) || !realTarget.startsWith(realWork + sep))
      return null;
    const stat = await lstat(realTarget).catch(() => null);
    if (!stat?.isFile()) return null;
    const handle = await open(
      realTarget,
      fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK,
    ).catch(() => null);
    if (!handle) return null;
    try {
      return new Uint8Array(await handle.readFile());
    } finally {
      await handle.close();
    }
  }

  async destroy(sandboxId: string): Promise<void> {
    assertSandboxId(sandboxId);
    await this.sessions.stop(sandboxId);
    await rm(this.dirOf(sandboxId), { recursive: true, force: true });
    this.sessions.forget(sandboxId);
  }

  private dirOf(sandboxId: string): string {
    return join(this.root, sandboxId);
  }

  private async requireAvailable(): Promise<void> {
    const availability = await this.availability();
    if (!availability.available) throw new SandboxUnavailableError(availability.reason);
  }

  /** Read-only binds of /usr and what the interpreters reach through it; nothing else of the host. */
  private systemBinds(): string[] {
    const args = ['--ro-bind', '/usr', '/usr'];
    for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
      const stat = (() => {
        try {
          return lstatSync(top);
        } catch {
          return null;
        }
      })();
      if (!stat) continue;
      if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
      else if (stat.isDirectory()) args.push('--ro-bind', top, top);
    }
    args.push('--ro-bind-try', '/etc/alternatives', '/etc/alternatives');
    args.push('--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache');
    return args;
  }

  private bwrapArgs(uid: number, binds: readonly string[], command: readonly string[]): string[] {
    return [
      `--reuid=${uid}`,
      `--regid=${uid}`,
      '--clear-groups',
      this.bwrap,
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      ...this.systemBinds(),
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--size',
      String(this.limits.diskMb * MB),
      '--tmpfs',
      '/dev/shm',
      '--size',
      String(this.limits.diskMb * MB),
      '--tmpfs',
      '/tmp',
      ...binds,
      // The root and /dev are bwrap's own tmpfs, unbounded: read-only, so nothing can fill memory through them.
      '--remount-ro',
      '/dev',
      '--remount-ro',
      '/',
      '--clearenv',
      '--setenv',
      'PATH',
      SANDBOX_PATH,
      '--setenv',
      'HOME',
      '/work',
      '--setenv',
      'LANG',
      'C.UTF-8',
      '--',
      ...command,
    ];
  }

  private async probe(): Promise<SandboxAvailability> {
    try {
      await mkdir(this.root, { recursive: true, mode: 0o711 });
      await chmod(this.root, 0o711);
    } catch (error) {
      return {
        available: false,
        reason: `cannot make the sandbox root ${this.root}: ${(error as Error).message}`,
      };
    }
    if (!existsSync(this.prlimit))
      return { available: false, reason: `${this.prlimit} (util-linux) is missing` };
    const args = this.bwrapArgs(PROBE_UID, ['--ro-bind', this.root, '/probe'], ['/bin/true']);
    const probe = spawnSync(this.setpriv, args, {
      env: { PATH: HOST_PATH },
      timeout: 10_000,
      encoding: 'utf8',
    });
    if (probe.error)
      return {
        available: false,
        reason: `cannot start ${this.setpriv}/${this.bwrap}: ${probe.error.message}`,
      };
    if (probe.status !== 0) {
      const said = `${probe.stderr ?? ''}`.trim().slice(0, 300) || `exit ${probe.status ?? probe.signal}`;
      return { available: false, reason: `bubblewrap cannot start a sandbox here: ${said}` };
    }
    return { available: true };
  }

  private async runNow(sandboxId: string, request: RunRequest, signal: AbortSignal): Promise<RunResult> {
    const started = Date.now();
    const limits = this.limits;
    const interpreter = request.language === 'python' ? this.python : this.shell;
    if (!existsSync(interpreter)) {
      return {
        exitCode: 127,
        signal: null,
        stdout: '',
        stderr: `${request.language} is not available in this sandbox (${interpreter} is not installed on the host)`,
        truncated: false,
        durationMs: Date.now() - started,
        timedOut: false,
        killedBy: null,
      };
    }
    const dir = this.dirOf(sandboxId);
    const work = join(dir, 'work');
    const before = await walk(work);
    const uid = sandboxUid(sandboxId);
    const command = [
      this.prlimit,
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
      `--as=${limits.memoryMb * MB}`,
      `--nproc=${limits.maxProcesses}`,
      `--fsize=${limits.maxFileMb * MB}`,
      `--nofile=${OPEN_FILES}`,
      '--core=0',
      '--',
      ...(request.language === 'python'
        ? [interpreter, '-I', '-c', request.code]
        : [interpreter, '-c', request.code]),
    ];
    const binds = ['--bind', work, '/work', '--ro-bind', join(dir, 'skills'), '/skills', '--chdir', '/work'];
    const kill = this.sessions.track(sandboxId);
    try {
      const outcome = await this.spawnRun(this.bwrapArgs(uid, binds, command), signal, kill.signal);
      let stderr = outcome.stderr;
      const excess = await this.trimWorkDir(work, before);
      if (excess) stderr += `${stderr && !stderr.endsWith('\n') ? '\n' : ''}${excess}\n`;
      let { exitCode, signal: ended } = outcome;
      // bwrap reports a command ended by signal N as exit status 128 + N.
      if (ended === null && exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
        const name = signalName(exitCode - 128);
        if (name) [exitCode, ended] = [null, name];
      }
      let killedBy: RunResult['killedBy'] = outcome.killedBy;
      if (!killedBy && ended === 'SIGXCPU') killedBy = 'cpu';
      if (!killedBy && exitCode !== 0 && request.language === 'python' && /^MemoryError\b/m.test(stderr)) {
        killedBy = 'memory';
      }
      return {
        exitCode,
        signal: ended,
        stdout: outcome.stdout,
        stderr,
        truncated: outcome.truncated,
        durationMs: Date.now() - started,
        timedOut: outcome.killedBy === 'timeout',
        killedBy,
      };
    } finally {
      kill.release();
    }
  }

  private spawnRun(
    args: readonly string[],
    signal: AbortSignal,
    destroyed: AbortSignal,
  ): Promise<{
    exitCode: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
    truncated: boolean;
    killedBy: 'timeout' | 'output' | null;
  }> {
    const limits = this.limits;
    return new Promise((resolve) => {
      const child = spawn(this.setpriv, args, {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: HOST_PATH },
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let taken = 0;
      let truncated = false;
      let killedBy: 'timeout' | 'output' | null = null;
      let killed = false;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let done = false;
      let graceTimer: NodeJS.Timeout | undefined;

      const killGroup = (): void => {
        if (killed) return;
        killed = true;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        graceTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, KILL_GRACE_MS);
      };
      const take = (into: Buffer[]) => (chunk: Buffer) => {
        if (truncated) return;
        const room = limits.outputBytes - taken;
        if (chunk.length > room) {
          into.push(chunk.subarray(0, room));
          taken = limits.outputBytes;
          truncated = true;
          killedBy ??= 'output';
          killGroup();
          return;
        }
        into.push(chunk);
        taken += chunk.length;
      };
      child.stdout.on('data', take(out));
      child.stderr.on('data', take(err));
      child.stdout.on('error', () => undefined);
      child.stderr.on('error', () => undefined);

      const wall = setTimeout(() => {
        killedBy ??= 'timeout';
        killGroup();
      }, limits.wallTimeoutMs);
      const onAbort = (): void => killGroup();
      signal.addEventListener('abort', onAbort);
      destroyed.addEventListener('abort', onAbort);
      if (signal.aborted) killGroup();

      const finish = (): void => {
        if (done) return;
        done = true;
        clearTimeout(wall);
        clearTimeout(graceTimer);
        signal.removeEventListener('abort', onAbort);
        destroyed.removeEventListener('abort', onAbort);
        // Whatever is left of the group (nothing, normally: the sandbox's pid namespace dies with bwrap).
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? (exit ? null : 'SIGKILL'),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          truncated,
          killedBy,
        });
      };
      child.on('error', (error) => {
        err.push(Buffer.from(`the sandbox could not start: ${error.message}\n`));
        finish();
      });
      child.on('exit', (code, sig) => {
        exit = { code, signal: sig };
      });
      child.on('close', finish);
    });
  }

  /** Deletes what this run added past the disk quota, largest first; says what it removed, or '' when within. */
  private async trimWorkDir(work: string, before: Map<string, FileState>): Promise<string> {
    const quota = this.limits.diskMb * MB;
    const after = await walk(work);
    let total = 0;
    for (const state of after.values()) total += state.size;
    if (total <= quota) return '';
    const written = [...after]
      .filter(([path, state]) => {
        const was = before.get(path);
        return !was || was.size !== state.size || was.mtimeMs !== state.mtimeMs || was.ino !== state.ino;
      })
      .sort((a, b) => b[1].size - a[1].size);
    let removed = 0;
    let freed = 0;
    for (const [path, state] of written) {
      if (total <= quota) break;
      await unlink(join(work, ...path.split('/'))).catch(() => undefined);
      total -= state.size;
      freed += state.size;
      removed += 1;
    }
    return (
      `[sandbox] the work dir exceeded its ${this.limits.diskMb} MB quota: ` +
      `${removed} file(s) written by this run were deleted (${freed} bytes)`
    );
  }
}
