// The embedded code sandbox: each run is a bubblewrap container started as a uid of the sandbox's own, with no
// network (not even loopback), no view of the host but /usr and the few paths interpreters need, a clean environment,
// and per-process resource limits set by prlimit in front of the interpreter. Over 300 lines on purpose: the mounts,
// cgroup, seccomp and limits of one run are one argument list whose parts only make sense together.
//
// Layout: `<root>/<sandboxId>/work` (owned by the sandbox's uid, 0700, bound read-write at /work) and
// `<root>/<sandboxId>/skills` (root-owned, files 0444, bound read-only at /skills). The sandbox's uid is
// 200000 + (the first 32 bits of SHA-256(id) mod 50000): not root, so RLIMIT_NPROC holds, and two sandboxes share a
// uid only on a hash collision. bwrap runs unprivileged (user namespace) as that uid, so it reaches the work and skills
// dirs by path: `<root>` and its ancestors must be searchable by others (the adapter makes `<root>` 0711 and the
// availability probe binds a directory inside it, so a root it cannot reach reads as unavailable with the reason).
//
// Disk: `<root>/<sandboxId>/work` is a tmpfs the adapter mounts with `size=diskMb` and `nr_inodes=workInodes`, so
// every byte and inode /work holds (files, directories, symbolic links) is bounded by the kernel while the run writes;
// RLIMIT_FSIZE caps each file (`maxFileMb`). The mount outlives a run (files one run writes, the next reads) and goes
// with `destroy`. Listing the files is a `find` child process with a deadline (bounded by the inode count), off the
// event loop. /tmp and /dev/shm are private tmpfs of `diskMb` each; / and /dev are read-only.
//
// Memory and processes: each run is in a cgroup of its own (v2 or v1, `cgroups.ts`) with `memory.max = memoryMb`
// (tmpfs pages the run writes included, no swap) and `pids.max = maxProcesses`, entered by a small shell before it
// execs setpriv/bwrap; the OOM killer's kills read as `killedBy: 'memory'`. RLIMIT_AS still caps each process too.
// No usable cgroup, no tmpfs mount or no seccomp filter for this architecture: unavailable, with the reason.
//
// Kernel surface: a seccomp filter (`seccomp.ts`) denies the syscalls container runtimes deny and namespace creation,
// and `--disable-userns` forbids nested user namespaces (`unshare -Ur` fails).
//
// Over 300 lines on purpose: the one place that builds the bubblewrap command line and its limits and reads
// runs
// back, so every isolation flag is reviewed together.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants as fsConstants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { chmod, chown, lstat, mkdir, open, realpath, rm, writeFile } from 'node:fs/promises';
import { arch, constants as osConstants } from 'node:os';
import { promisify } from 'node:util';
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
import { type Cgroups, detectCgroups, type SandboxCgroup } from './cgroups.js';
import { seccompFilter } from './seccomp.js';

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
  /** Finds the cgroups runs are limited by (default: this host's, `detectCgroups`). */
  readonly detectCgroups?: typeof detectCgroups;
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
/** Inodes (files, directories, links) a sandbox's /work holds when the limits do not say. */
export const DEFAULT_WORK_INODES = 10_000;
/** Most of `find`'s output a listing reads, and how long it may take: past either, the listing is partial. */
const LIST_BYTES = 4 * MB;
const LIST_DEADLINE_MS = 10_000;
/** The fd bwrap reads the seccomp program from (the fourth stdio entry of the run's process). */
const SECCOMP_FD = 3;
/** Enters the cgroups named by its arguments (their cgroup.procs files), then execs the rest: before any user code. */
const ENTER_CGROUPS =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; n=$((n-1)); shift; done; exec "$@"';
const run$ = promisify(execFile);

/** The sandbox's own uid (and gid). */
export const sandboxUid = (sandboxId: string): number =>
  UID_BASE + (createHash('sha256').update(sandboxId).digest().readUInt32BE(0) % UID_SPAN);

const signalName = (n: number): string | null =>
  Object.entries(osConstants.signals).find(([, value]) => value === n)?.[0] ?? null;

/**
 * Regular files under `dir` (relative path → size), listed by a `find` child process with a deadline and a cap on
 * what is read, so a tree of many entries costs the event loop nothing but the bounded parse: links and special
 * files are skipped, never followed, and no other file system below `dir` is entered.
 */
/**
 * Writes the Skill files under `skills`: folders 0755 and files 0444, set explicitly since the sandbox's own uid reads
 * them and the platform's processes run with umask 077 (libs/core/kernel/src/private-files.ts).
 */
async function placeSkills(
  skills: string,
  placed: readonly { segments: readonly string[]; bytes: Uint8Array }[],
  options: { refuseDuplicates: boolean },
): Promise<void> {
  const makeShared = async (dir: string) => {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
  };
  await makeShared(skills);
  for (const { segments, bytes } of placed) {
    for (let depth = 1; depth < segments.length; depth++)
      await makeShared(join(skills, ...segments.slice(0, depth)));
    const target = join(skills, ...segments);
    await writeFile(target, bytes, { mode: 0o444, flag: options.refuseDuplicates ? 'wx' : 'w' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
        throw new ValidationError('duplicate_sandbox_path', `Two files at ${segments.join('/')}`, 'path');
      },
    );
    await chmod(target, 0o444);
  }
}

function listRegularFiles(dir: string): Promise<Map<string, number>> {
  return new Promise((resolve) => {
    const child = spawn('find', [dir, '-mindepth', '1', '-xdev', '-type', 'f', '-printf', '%s %P\\0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: HOST_PATH },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const deadline = setTimeout(() => child.kill('SIGKILL'), LIST_DEADLINE_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      if (size >= LIST_BYTES) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size >= LIST_BYTES) child.kill('SIGKILL');
    });
    child.on('error', () => undefined);
    child.on('close', () => {
      clearTimeout(deadline);
      const found = new Map<string, number>();
      const records = Buffer.concat(chunks).toString('utf8').split('\0');
      records.pop(); // unterminated (cut short) or empty
      for (const record of records) {
        const space = record.indexOf(' ');
        const path = record.slice(space + 1);
        if (space > 0 && path) found.set(path, Number(record.slice(0, space)));
      }
      resolve(found);
    });
  });
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
  private cgroups: Cgroups | undefined;
  private readonly workInodes: number;
  private readonly detectCgroups: typeof detectCgroups;
  private readonly sessions: SandboxSessions;
  /** Use, one-at-a-time runs (the disk check compares before and after) and the kills of runs under way. */

  constructor(options: BubblewrapSandboxOptions) {
    this.root = options.root;
    this.limits = options.limits;
    this.sessions = new SandboxSessions(options.limits.idleTimeoutMs);
    this.workInodes = options.limits.workInodes ?? DEFAULT_WORK_INODES;
    this.detectCgroups = options.detectCgroups ?? detectCgroups;
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
    await this.mountWork(join(dir, 'work'), uid).catch((error: Error) => {
      throw new SandboxUnavailableError(`cannot mount the sandbox's /work: ${error.message.split('\n')[0]}`);
    });
    await chown(join(dir, 'work'), uid, uid);
    await chmod(join(dir, 'work'), 0o700);
    await placeSkills(join(dir, 'skills'), placed, { refuseDuplicates: true });
    this.sessions.touch(sandboxId);
  }

  /** In the sandbox's queue: a run never sees /skills half rewritten (removed, or some files written). */
  async replaceSkills(sandboxId: string, files: readonly SandboxFile[]): Promise<void> {
    assertSandboxId(sandboxId);
    const placed = files.map((file) => {
      const segments = safeSegments(file.path);
      if (!segments)
        throw new ValidationError('invalid_sandbox_path', `Not a relative path: ${file.path}`, 'path');
      return { segments, bytes: file.bytes };
    });
    await this.requireAvailable();
    const skills = join(this.dirOf(sandboxId), 'skills');
    await this.sessions.serialize(
      sandboxId,
      async () => {
        await rm(skills, { recursive: true, force: true });
        await placeSkills(skills, placed, { refuseDuplicates: false });
      },
      { use: false },
    );
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
    const files = await listRegularFiles(work);
    return [...files]
      .map(([path, sizeBytes]) => ({ path, sizeBytes }))
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
    const work = join(this.dirOf(sandboxId), 'work');
    if (existsSync(work)) await this.unmountWork(work);
    await rm(this.dirOf(sandboxId), { recursive: true, force: true });
    this.sessions.forget(sandboxId);
  }

  private dirOf(sandboxId: string): string {
    return join(this.root, sandboxId);
  }

  private get seccompPath(): string {
    return join(this.root, '.seccomp.bpf');
  }

  /** /work's own tmpfs: its bytes (`diskMb`) and inodes (`workInodes`) are bounded by the kernel. */
  private async mountWork(work: string, uid: number): Promise<void> {
    const options = [
      `size=${this.limits.diskMb * MB}`,
      `nr_inodes=${this.workInodes}`,
      'mode=0700',
      `uid=${uid}`,
      `gid=${uid}`,
      'nosuid',
      'nodev',
    ].join(',');
    await run$('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', work], { env: { PATH: HOST_PATH } });
  }

  private async unmountWork(work: string): Promise<void> {
    const env = { PATH: HOST_PATH };
    await run$('umount', [work], { env }).catch(() =>
      run$('umount', ['-l', work], { env }).catch(() => undefined),
    );
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
      '--unshare-user',
      '--disable-userns',
      '--seccomp',
      String(SECCOMP_FD),
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
    // The first /health of a start waits for this probe, and each await of a chain waits for a turn of an event loop
    // still busy with the start: the few small writes are made synchronously, so the checks' processes start at
    // once and run while the api finishes starting (a chain of awaits held a fresh api's first /health 40–80 ms after
    // it listened, measured). The three checks are independent, so they run at once. Spawned, not spawnSync: bwrap
    // starting must not hold the event loop (≈0.1 s, measured).
    try {
      openToSandboxes(this.root, mkdirSync(this.root, { recursive: true, mode: 0o711 }));
    } catch (error) {
      return {
        available: false,
        reason: `cannot make the sandbox root ${this.root}: ${(error as Error).message}`,
      };
    }
    if (!existsSync(this.prlimit))
      return { available: false, reason: `${this.prlimit} (util-linux) is missing` };
    const filter = seccompFilter();
    if (!filter) return { available: false, reason: `no seccomp filter for the ${arch()} architecture here` };
    writeFileSync(this.seccompPath, filter, { mode: 0o600 });
    // The probe sandbox binds a directory of its own inside the root, reached by path as a sandbox's dirs are: not
    // the root itself, whose recursive bind would race with the tmpfs the mount check mounts and removes beside it
    // (bwrap: "Can't bind mount … Unable to apply mount flags", seen in CI).
    const reached = join(this.root, `.probe-run-${process.pid}`);
    mkdirSync(reached, { recursive: true, mode: 0o711 });
    const args = this.bwrapArgs(PROBE_UID, ['--ro-bind', reached, '/probe'], ['/bin/true']);
    const [cgroups, mounted, probe] = await Promise.all([
      this.detectCgroups(),
      this.probeMount(),
      this.probeRun(args).finally(() => rm(reached, { recursive: true, force: true }).catch(() => undefined)),
    ]);
    if (!('create' in cgroups)) return { available: false, reason: cgroups.reason };
    this.cgroups = cgroups;
    if (mounted) return { available: false, reason: mounted };
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

  /** Runs the probe sandbox (seccomp filter on fd 3), with its exit status and the start of its stderr. */
  private probeRun(
    args: string[],
  ): Promise<{ error?: Error; status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    return new Promise((resolve) => {
      const seccomp = openSync(this.seccompPath, 'r');
      let child: ChildProcess;
      try {
        child = spawn(this.setpriv, args, {
          env: { PATH: HOST_PATH },
          timeout: 10_000,
          stdio: ['ignore', 'ignore', 'pipe', seccomp],
        });
      } catch (error) {
        resolve({ error: error as Error, status: null, signal: null, stderr: '' });
        return;
      } finally {
        closeSync(seccomp);
      }
      let stderr = '';
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        if (stderr.length < 4096) stderr += chunk;
      });
      child.once('error', (error) => resolve({ error, status: null, signal: null, stderr }));
      child.once('close', (status, signal) => resolve({ status, signal, stderr }));
    });
  }

  /** Whether a size-limited tmpfs can be mounted for /work here: null when it can, else why not. */
  private async probeMount(): Promise<string | null> {
    const dir = join(this.root, `.probe-${process.pid}`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      await this.mountWork(dir, PROBE_UID);
      await this.unmountWork(dir);
      return null;
    } catch (error) {
      return `cannot mount a size-limited tmpfs for /work: ${(error as Error).message.split('\n')[0]}`;
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
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
    let cgroup: SandboxCgroup;
    try {
      cgroup = await this.cgroups!.create(sandboxId, {
        memoryBytes: limits.memoryMb * MB,
        maxProcesses: limits.maxProcesses,
      });
    } catch (error) {
      return {
        exitCode: 125,
        signal: null,
        stdout: '',
        stderr: `[sandbox] the run's limits could not be set up (${(error as Error).message}); nothing ran`,
        truncated: false,
        durationMs: Date.now() - started,
        timedOut: false,
        killedBy: null,
      };
    }
    const kill = this.sessions.track(sandboxId);
    try {
      const outcome = await this.spawnRun(
        this.bwrapArgs(uid, binds, command),
        cgroup.procsFiles,
        signal,
        kill.signal,
      );
      const oomKills = await cgroup.oomKills();
      const stderr = outcome.stderr;
      let { exitCode, signal: ended } = outcome;
      // bwrap reports a command ended by signal N as exit status 128 + N.
      if (ended === null && exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
        const name = signalName(exitCode - 128);
        if (name) [exitCode, ended] = [null, name];
      }
      let killedBy: RunResult['killedBy'] = outcome.killedBy;
      if (!killedBy && oomKills > 0) killedBy = 'memory';
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
      await cgroup.remove();
    }
  }

  // Over 100 lines on purpose: one run's process, its limits, output caps and timeout share the child's
  // state.
  private spawnRun(
    args: readonly string[],
    cgroupProcs: readonly string[],
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
      const seccomp = openSync(this.seccompPath, 'r');
      const child = (() => {
        try {
          return spawn(
            '/bin/sh',
            [
              '-c',
              ENTER_CGROUPS,
              'sandbox-enter',
              String(cgroupProcs.length),
              ...cgroupProcs,
              this.setpriv,
              ...args,
            ],
            { detached: true, stdio: ['ignore', 'pipe', 'pipe', seccomp], env: { PATH: HOST_PATH } },
          );
        } finally {
          closeSync(seccomp);
        }
      })();
      const stdout = child.stdout!;
      const stderr = child.stderr!;
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
          stdout.destroy();
          stderr.destroy();
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
      stdout.on('data', take(out));
      stderr.on('data', take(err));
      stdout.on('error', () => undefined);
      stderr.on('error', () => undefined);

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
}

/**
 * Makes the sandbox root reachable by the sandboxes' own uids (0711): every directory `mkdirSync` made on the way
 * (`first` … root; the process's umask, 077 in the api, left them private), and the root's parent when this process
 * owns it and it is not a shared sticky directory such as /tmp: an api started first under that umask made the
 * platform's `agent-platform-sandboxes` folder 0700, and every later sandbox root under it was out of reach.
 */
function openToSandboxes(root: string, first: string | undefined): void {
  for (let dir = root; ; dir = dirname(dir)) {
    chmodSync(dir, 0o711);
    if (first === undefined || dir === first || dirname(dir) === dir) break;
  }
  const parent = dirname(root);
  const stats = statSync(parent);
  if (stats.uid === process.getuid?.() && (stats.mode & 0o1000) === 0 && (stats.mode & 0o011) !== 0o011)
    chmodSync(parent, (stats.mode & 0o7777) | 0o011);
}
